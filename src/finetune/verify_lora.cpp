// The checks of a "lora" reference folder (see verify_lora.h).
#include "finetune/verify_lora.h"

#include <limits>
#include <set>

#include "finetune/verify_util.h"
#include "lora/peft.h"
#include "model/hf_gpt2.h"
#include "train/trainable.h"
#include "util/error.h"
#include "util/json_read.h"

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

}  // namespace

std::vector<CheckResult> verify_lora(const std::string& dir) {
  const nlohmann::json json = read_reference_json(dir);
  const JsonField info(json, dir + "/reference.json");
  require(info["task"].string() == "lora", info["task"].name() + " must be \"lora\"");
  const std::string adapter_dir = dir + "/" + info["adapter"].string();
  const SafeTensors ref = load_safetensors(dir + "/reference.safetensors");
  Shape shape, target_shape;
  const std::vector<int32_t> ids = reference_ids(ref, "input_ids", 2, &shape);
  const std::vector<int32_t> targets = reference_ids(ref, "targets", 2, &target_shape);
  require(target_shape == shape, ref.source + ": targets must have the shape of input_ids");
  const int64_t B = shape[0], T = shape[1];

  std::unique_ptr<GPT> model;
  std::unique_ptr<LoraSet> lora = load_adapted(dir, adapter_dir, model);
  std::vector<CheckResult> results;
  if (info.has("r"))
    require(info["r"].integer(1, std::numeric_limits<int32_t>::max()) == lora->config().r,
            info["r"].name() + " disagrees with the adapter's r");
  if (info.has("scaling"))
    results.push_back(make_check("scaling",
                                 relative_error(lora->config().scaling(), info["scaling"].number()),
                                 1e-7, "alpha / r = " + std::to_string(lora->config().scaling())));

  model->zero_grad();
  for (const auto& p : lora->parameters()) p.param->grad.zero();
  const double loss = model->forward_loss(ids.data(), targets.data(), B, T);
  const Tensor expected_logits = ref.get("logits").to_float();
  const Tensor logits = model->forward(ids.data(), B, T);
  check_shape(expected_logits, logits.shape(), ref.source + ": logits");
  results.push_back(make_check(
      "logits", relative_error(logits.data(), expected_logits.data(), logits.numel()), 1e-5,
      std::to_string(lora->attached().size()) + " adapted modules, " +
          std::to_string(lora->num_parameters()) + " LoRA parameters"));
  model->forward_loss(ids.data(), targets.data(), B, T);  // the loss state for backward
  results.push_back(make_check("loss", relative_error(loss, info["loss"].number()), 1e-5));

  model->backward();
  int64_t base_with_grad = 0;
  for (const auto& p : model->parameters()) base_with_grad += p.param->grad.defined();
  std::string worst_name;
  const double grad_err = worst_of(lora->parameters(), ref, "grad.", true, worst_name);
  results.push_back(
      make_check("grad", base_with_grad ? std::numeric_limits<double>::infinity() : grad_err, 1e-4,
                 "worst: " + worst_name + "; base frozen: " + (base_with_grad ? "NO" : "yes")));

  // Merged weights: W + s (B A)^T in HF's [in, out] layout; everything else unchanged.
  {
    std::unique_ptr<GPT> merged_model;
    std::unique_ptr<LoraSet> merged_lora = load_adapted(dir, adapter_dir, merged_model);
    std::set<std::string> adapted;
    for (const auto& a : merged_lora->attached()) adapted.insert(a.target.module + ".weight");
    merged_lora->merge();
    std::unique_ptr<GPT> base = load_hf_gpt2(dir);
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
      if (!ref.has(key)) continue;
      const Tensor expected = ref.get(key).to_float();
      check_shape(expected, ours.shape(), ref.source + ": " + key);
      const double err = relative_error(ours.data(), expected.data(), ours.numel());
      ++checked;
      if (err >= worst) worst = err, worst_merged = hf;
    }
    for (const auto& n : ref.names)
      if (n.rfind("merged.", 0) == 0)
        require(adapted.count(n.substr(7)),
                ref.source + ": " + n + " is not a module the adapter changes");
    results.push_back(
        make_check("merged", others_moved ? std::numeric_limits<double>::infinity() : worst, 1e-5,
                   "worst: " + worst_merged + "; " + std::to_string(checked) +
                       " weights checked, others unchanged: " + (others_moved ? "NO" : "yes")));
  }

  if (info.has("adamw")) {
    const AdamWReference a = read_adamw_reference(info["adamw"]);
    std::unique_ptr<GPT> trained;
    std::unique_ptr<LoraSet> trained_lora = load_adapted(dir, adapter_dir, trained);
    const ParameterList adapters = trained_lora->parameters();
    std::vector<Tensor> base_before;
    for (const auto& p : trained->parameters()) base_before.push_back(p.param->value.clone());
    const double worst_step = run_reference_adamw(a, adapters, [&] {
      const double loss = trained->forward_loss(ids.data(), targets.data(), B, T);
      trained->backward();
      return loss;
    });
    if (a.has_per_step)
      results.push_back(make_check("adamw.per_step", worst_step, 1e-4, "loss and grad norm"));
    int64_t base_moved = 0;
    const ParameterList base_after = trained->parameters();
    for (size_t i = 0; i < base_after.size(); ++i)
      for (int64_t k = 0; k < base_before[i].numel(); ++k)
        base_moved += base_after[i].param->value[k] != base_before[i][k];
    std::string worst_adamw;
    const double err = worst_of(adapters, ref, "after_adamw.", false, worst_adamw);
    results.push_back(
        make_check("adamw.params", base_moved ? std::numeric_limits<double>::infinity() : err, 1e-4,
                   "worst: " + worst_adamw + "; base unchanged: " + (base_moved ? "NO" : "yes")));
  }
  return results;
}

}  // namespace tinylm::finetune
