// The checks of a "lora" reference folder (see verify_lora.h).
#include "verify/verify_lora.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "lora/peft.h"
#include "model/hf_gpt2.h"
#include "run/trainable.h"
#include "util/error.h"
#include "util/json_read.h"
#include "verify/verify_util.h"

namespace tinylm::finetune {

namespace {

const std::string kPeftPrefix = "base_model.model.";

// The base, frozen, with the adapter attached. `model` must outlive the returned set.
std::unique_ptr<LoraSet> load_adapted(const std::string& dir, const std::string& adapter_dir,
                                      std::unique_ptr<GPT>& model) {
  model = load_hf_gpt2(dir);
  for (const auto& p : model->parameters()) p.param->set_trainable(false);
  return load_peft_adapter(*model, nullptr, adapter_dir);
}

double worst_of(const ParameterList& params, const SafeTensors& ref, const std::string& prefix,
                bool grads, std::string& worst_name) {
  double worst = 0;
  worst_name = "(none)";
  for (const auto& [name, param] : params) {
    const std::string key = prefix + kPeftPrefix + name;
    require(ref.has(key), ref.source + ": missing " + key);
    const Tensor expected = ref.get(key).to_float();
    const Tensor& ours = grads ? param->grad : param->value;
    check_shape(expected, ours.shape(), ref.source + ": " + key);
    const double err = relative_error(ours.data(), expected.data(), ours.numel());
    if (err >= worst) worst = err, worst_name = name;
  }
  return worst;
}

// A "lora" folder: the base (dir), the adapter, and the batch of reference.safetensors.
struct LoraFixture {
  std::string dir, adapter_dir;
  SafeTensors ref;
  std::vector<int32_t> ids, targets;  // [B, T]
  int64_t B = 0, T = 0;

  std::unique_ptr<LoraSet> load(std::unique_ptr<GPT>& model) const {
    return load_adapted(dir, adapter_dir, model);
  }
  double loss_and_backward(GPT& model) const {
    const double loss = model.forward_loss(ids.data(), targets.data(), B, T);
    model.backward();
    return loss;
  }
};

// Logits and loss of the adapted model, and the gradients of the adapter (the base frozen).
void check_forward_backward(const LoraFixture& f, const JsonField& info,
                            std::vector<CheckResult>& results) {
  std::unique_ptr<GPT> model;
  std::unique_ptr<LoraSet> lora = f.load(model);
  if (info.has("r"))
    require(info["r"].integer(1, std::numeric_limits<int32_t>::max()) == lora->config().r,
            info["r"].name() + " disagrees with the adapter's r");
  if (info.has("scaling"))
    results.push_back(make_check("scaling",
                                 relative_error(lora->config().scaling(), info["scaling"].number()),
                                 1e-7, "alpha / r = " + std::to_string(lora->config().scaling())));

  model->zero_grad();
  for (const auto& p : lora->parameters()) p.param->grad.zero();
  const Tensor expected_logits = f.ref.get("logits").to_float();
  const Tensor logits = model->forward(f.ids.data(), f.B, f.T);
  check_shape(expected_logits, logits.shape(), f.ref.source + ": logits");
  results.push_back(make_check(
      "logits", relative_error(logits.data(), expected_logits.data(), logits.numel()), 1e-5,
      std::to_string(lora->attached().size()) + " adapted modules, " +
          std::to_string(lora->num_parameters()) + " LoRA parameters"));
  const double loss = f.loss_and_backward(*model);
  results.push_back(make_check("loss", relative_error(loss, info["loss"].number()), 1e-5));

  int64_t base_with_grad = 0;
  for (const auto& p : model->parameters()) base_with_grad += p.param->grad.defined();
  std::string worst_name;
  const double grad_err = worst_of(lora->parameters(), f.ref, "grad.", true, worst_name);
  results.push_back(
      make_check("grad", base_with_grad ? std::numeric_limits<double>::infinity() : grad_err, 1e-4,
                 "worst: " + worst_name + "; base frozen: " + (base_with_grad ? "NO" : "yes")));
}

// Merged weights: W + s (B A)^T in HF's [in, out] layout; everything else unchanged.
CheckResult check_merged(const LoraFixture& f) {
  std::unique_ptr<GPT> merged_model;
  std::unique_ptr<LoraSet> merged_lora = f.load(merged_model);
  std::set<std::string> adapted;
  for (const auto& a : merged_lora->attached()) adapted.insert(a.target.module + ".weight");
  merged_lora->merge();
  std::unique_ptr<GPT> base = load_hf_gpt2(f.dir);
  const ParameterList before = base->parameters(), after = merged_model->parameters();
  double worst = 0;
  std::string worst_merged = "(none)";
  int64_t checked = 0, others_moved = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    const std::string hf = hf_param_name(after[i].name);
    const Tensor ours = to_hf_layout(after[i].name, after[i].param->value);
    if (!adapted.count(hf)) {
      for (int64_t k = 0; k < ours.numel(); ++k)
        others_moved += after[i].param->value[k] != before[i].param->value[k];
      continue;
    }
    const std::string key = "merged." + hf;
    if (!f.ref.has(key)) continue;
    const Tensor expected = f.ref.get(key).to_float();
    check_shape(expected, ours.shape(), f.ref.source + ": " + key);
    const double err = relative_error(ours.data(), expected.data(), ours.numel());
    ++checked;
    if (err >= worst) worst = err, worst_merged = hf;
  }
  for (const auto& n : f.ref.names)
    if (n.rfind("merged.", 0) == 0)
      require(adapted.count(n.substr(7)),
              f.ref.source + ": " + n + " is not a module the adapter changes");
  return make_check("merged", others_moved ? std::numeric_limits<double>::infinity() : worst, 1e-5,
                    "worst: " + worst_merged + "; " + std::to_string(checked) +
                        " weights checked, others unchanged: " + (others_moved ? "NO" : "yes"));
}

// The reference's AdamW steps on the adapter: per-step loss and norm, the adapter after
// them, and the base unchanged.
void check_adamw(const LoraFixture& f, const AdamWReference& a, std::vector<CheckResult>& results) {
  std::unique_ptr<GPT> trained;
  std::unique_ptr<LoraSet> trained_lora = f.load(trained);
  const ParameterList adapters = trained_lora->parameters();
  std::vector<Tensor> base_before;
  for (const auto& p : trained->parameters()) base_before.push_back(p.param->value.clone());
  const double worst_step =
      run_reference_adamw(a, adapters, [&] { return f.loss_and_backward(*trained); });
  if (a.has_per_step)
    results.push_back(make_check("adamw.per_step", worst_step, 1e-4, "loss and grad norm"));
  int64_t base_moved = 0;
  const ParameterList base_after = trained->parameters();
  for (size_t i = 0; i < base_after.size(); ++i)
    for (int64_t k = 0; k < base_before[i].numel(); ++k)
      base_moved += base_after[i].param->value[k] != base_before[i][k];
  std::string worst_adamw;
  const double err = worst_of(adapters, f.ref, "after_adamw.", false, worst_adamw);
  results.push_back(
      make_check("adamw.params", base_moved ? std::numeric_limits<double>::infinity() : err, 1e-4,
                 "worst: " + worst_adamw + "; base unchanged: " + (base_moved ? "NO" : "yes")));
}

}  // namespace

std::vector<CheckResult> verify_lora(const std::string& dir) {
  const nlohmann::json json = read_reference_json(dir);
  const JsonField info(json, dir + "/reference.json");
  require(info["task"].string() == "lora", info["task"].name() + " must be \"lora\"");
  LoraFixture f;
  f.dir = dir;
  f.adapter_dir = dir + "/" + info["adapter"].string();
  f.ref = load_safetensors(dir + "/reference.safetensors");
  Shape shape, target_shape;
  f.ids = reference_ids(f.ref, "input_ids", 2, &shape);
  f.targets = reference_ids(f.ref, "targets", 2, &target_shape);
  require(target_shape == shape, f.ref.source + ": targets must have the shape of input_ids");
  f.B = shape[0];
  f.T = shape[1];

  std::vector<CheckResult> results;
  check_forward_backward(f, info, results);
  results.push_back(check_merged(f));
  if (info.has("adamw")) check_adamw(f, read_adamw_reference(info["adamw"]), results);
  return results;
}

}  // namespace tinylm::finetune
