// The instruction fixture's checks: ids rebuilt from entries.json, loss and gradients
// of the GPT model; see verify_instruct.h.
#include "verify/verify_instruct.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "data/instruction_collate.h"
#include "data/instruction_data.h"
#include "io/safetensors.h"
#include "model/hf_gpt2.h"
#include "tokenizer/bpe_tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"
#include "verify/verify_util.h"

namespace tinylm {

using finetune::make_check;
using finetune::read_reference_json;
using finetune::relative_error;

namespace {

std::string shape_text(int64_t B, int64_t T) {
  char text[48];
  std::snprintf(text, sizeof text, "[%lld, %lld]", static_cast<long long>(B),
                static_cast<long long>(T));
  return text;
}

// A reference [B, T] id tensor compared with ours: the number of differing entries
// (all of them when the shapes differ), and where the first one is.
CheckResult compare_ids(const std::string& name, const SafeTensors& ref, const std::string& key,
                        const std::vector<int32_t>& ours, int64_t B, int64_t T,
                        int64_t ref_ignore) {
  const SafeTensorEntry& e = ref.get(key);
  require(e.shape.size() == 2, "reference.safetensors: " + key + " must be [B, T]");
  if (e.shape[0] != B || e.shape[1] != T)
    return make_check(
        name, static_cast<double>(std::max<int64_t>(e.numel(), B * T)), 0,
        "shape: ours " + shape_text(B, T) + ", reference " + shape_text(e.shape[0], e.shape[1]));
  const std::vector<int64_t> expected = e.to_int64();
  int64_t differ = 0, first = -1;
  for (int64_t i = 0; i < B * T; ++i) {
    const int64_t want = expected[i] == ref_ignore ? kIgnoreTarget : expected[i];
    if (want != ours[i]) {
      ++differ;
      if (first < 0) first = i;
    }
  }
  std::string detail = "shape " + shape_text(B, T);
  if (first >= 0)
    detail += "; first difference at [" + std::to_string(first / T) + ", " +
              std::to_string(first % T) + "]: ours " + std::to_string(ours[first]) +
              ", reference " + std::to_string(expected[first]);
  return make_check(name, static_cast<double>(differ), 0, detail);
}

// One case of reference.json: how to collate, and what the reference found.
struct Case {
  std::string name;
  InstructionCollateOptions collate;
  double loss = 0;
  int64_t counted_targets = -1;  // -1: not given
};

// reference.json: the cases, the pad id and the reference's ignore index. Every field of
// every case is read before the model is loaded.
struct InstructSpec {
  std::vector<Case> cases;
  int64_t pad_id = 0, ref_ignore = 0;
};

InstructSpec read_instruct_spec(const JsonField& info, const std::string& path) {
  const std::string task = info["task"].string();
  require(task == "instruct", path + ": task: expected \"instruct\", got \"" + task + "\"");
  constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();
  InstructSpec spec;
  spec.pad_id = info["pad_and_end_token"].integer(0, kMaxId);
  spec.ref_ignore = info["ignore_index"].integer(-kMaxId, kMaxId);
  const int64_t max_length =  // 0 = no cut
      info.has("allowed_max_length") ? info["allowed_max_length"].integer(0, kMaxId) : 0;
  const JsonField cases = info["cases"];
  cases.require_object();
  require(!cases.raw().empty(), cases.name() + ": no cases");
  for (const auto& item : cases.raw().items()) {
    const JsonField c = cases[item.key()];
    c.require_object();
    Case k;
    k.name = item.key();
    k.collate.pad_id = static_cast<int32_t>(spec.pad_id);
    k.collate.mask_prompt = c["mask_prompt"].boolean();
    k.collate.allowed_max_length = max_length;
    k.loss = c["loss"].number();
    if (c.has("counted_targets")) k.counted_targets = c["counted_targets"].integer(0, INT64_MAX);
    spec.cases.push_back(k);
  }
  return spec;
}

// The collated ids and targets against the reference's, and the count of supervised
// targets if the reference gives it.
void check_batch(const Case& k, const Batch& b, const SafeTensors& ref, int64_t ref_ignore,
                 std::vector<CheckResult>& results) {
  const std::string& name = k.name;
  results.push_back(
      compare_ids(name + ".ids", ref, name + ".input_ids", b.inputs, b.B, b.T, ref_ignore));
  CheckResult targets =
      compare_ids(name + ".targets", ref, name + ".targets", b.targets, b.B, b.T, ref_ignore);
  if (k.counted_targets >= 0) {
    const int64_t counted = k.counted_targets;
    targets.detail += "; " + std::to_string(b.supervised()) + " counted (reference " +
                      std::to_string(counted) + ")";
    if (counted != b.supervised()) targets.error += 1, targets.pass = false;
  }
  results.push_back(targets);
}

// The gradients the reference gives for case `name`, by Hugging Face name (after
// forward_loss); nothing when it gives none.
std::optional<CheckResult> check_grads(GPT& model, const SafeTensors& ref,
                                       const std::string& name) {
  const std::string prefix = name + ".grad.";
  std::vector<std::string> grad_keys;
  for (const auto& key : ref.names)
    if (key.rfind(prefix, 0) == 0) grad_keys.push_back(key);
  if (grad_keys.empty()) return std::nullopt;
  model.backward();
  double worst = 0;
  std::string worst_name;
  for (const auto& key : grad_keys) {
    const std::string hf = key.substr(prefix.size());
    bool found = false;
    for (auto& [pname, param] : model.parameters()) {
      if (hf_param_name(pname) != hf) continue;
      found = true;
      const Tensor expected = ref.get(key).to_float();
      const Tensor ours = to_hf_layout(pname, param->grad);
      check_shape(expected, ours.shape(), "reference.safetensors: " + key);
      const double err = relative_error(ours.data(), expected.data(), ours.numel());
      if (err >= worst) worst = err, worst_name = hf;
      break;
    }
    require(found, "reference.safetensors: " + key + " names no parameter of the model");
  }
  return make_check(name + ".grad", worst, 1e-4,
                    std::to_string(grad_keys.size()) + " tensors, worst: " + worst_name);
}

// One case: the batch, then the loss and gradients of the model on it.
void check_case(const Case& k, const std::vector<EncodedInstruction>& encoded, GPT& model,
                const SafeTensors& ref, int64_t ref_ignore, const std::string& dir,
                std::vector<CheckResult>& results) {
  const Batch b = collate_instructions(encoded, k.collate);
  check_batch(k, b, ref, ref_ignore, results);
  const int64_t context = model.config().block_size;
  require(b.T <= context, dir + ": case " + k.name + ": " + std::to_string(b.T) +
                              " positions exceed the model's context of " +
                              std::to_string(context));
  for (int32_t id : b.inputs)
    require(id < model.config().vocab_size,
            dir + ": token id " + std::to_string(id) + " is outside the model's vocabulary");
  model.zero_grad();
  const double loss = model.forward_loss(b.inputs.data(), b.targets.data(), b.B, b.T);
  char detail[64];
  std::snprintf(detail, sizeof detail, "%.6f (reference %.6f)", loss, k.loss);
  results.push_back(make_check(
      k.name + ".loss", std::abs(loss - k.loss) / std::max(std::abs(k.loss), 1e-30), 1e-5, detail));
  if (auto grads = check_grads(model, ref, k.name)) results.push_back(*grads);
}

}  // namespace

std::vector<CheckResult> verify_instruct(const std::string& dir) {
  const std::string path = dir + "/reference.json";
  const nlohmann::json json = read_reference_json(dir);
  const InstructSpec spec = read_instruct_spec(JsonField(json, path), path);

  const std::vector<InstructionEntry> entries = read_instruction_file(dir + "/entries.json");
  const BpeTokenizer gpt2;  // tinylm's GPT-2 tokenizer (data/gpt2)
  std::vector<EncodedInstruction> encoded;
  for (const auto& e : entries) encoded.push_back(encode_instruction(gpt2, e));

  const SafeTensors ref = load_safetensors(dir + "/reference.safetensors");
  std::unique_ptr<GPT> model = load_hf_gpt2(dir);
  require(spec.pad_id < model->config().vocab_size,
          path + ": pad_and_end_token: " + std::to_string(spec.pad_id) +
              " is outside the model's vocabulary");

  std::vector<CheckResult> results;
  for (const Case& k : spec.cases)
    check_case(k, encoded, *model, ref, spec.ref_ignore, dir, results);
  return results;
}

}  // namespace tinylm
