// The checks of a "classify" reference folder (see verify_classify.h).
#include "verify/verify_classify.h"

#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "model/hf_classifier.h"
#include "model/hf_gpt2.h"
#include "run/trainable.h"
#include "util/error.h"
#include "util/json_read.h"
#include "verify/verify_util.h"

namespace tinylm::finetune {

namespace {

// HF name ("transformer.h.2.ln_1.weight", "score.weight") of a classifier parameter.
std::string hf_name(const std::string& name) {
  return name.rfind("score.", 0) == 0 ? name : hf_param_name(name);
}

struct Setup {
  std::unique_ptr<SequenceClassifier> model;
  std::vector<std::string> trainable;  // tinylm names
};

// Loads the classifier, applies the reference's pooling / pad id, freezes all but the
// listed tensors.
Setup load(const std::string& dir, const JsonField& info) {
  Setup s;
  s.model = load_hf_classifier(dir);
  const ClassifierConfig& cc = s.model->config();
  s.model->set_pooling(parse_pooling(info["pooling"].string()),
                       info.has("pad_token_id") ? static_cast<int32_t>(info["pad_token_id"].integer(
                                                      0, std::numeric_limits<int32_t>::max()))
                                                : cc.pad_token_id);
  if (info.has("num_labels"))
    require(info["num_labels"].integer(1, std::numeric_limits<int32_t>::max()) == cc.num_labels,
            info["num_labels"].name() + " disagrees with config.json (" +
                std::to_string(cc.num_labels) + ")");

  std::map<std::string, std::string> by_hf;
  for (const auto& p : s.model->parameters()) by_hf[hf_name(p.name)] = p.name;
  const JsonField trainable = info["trainable"];
  require(trainable.size() > 0, trainable.name() + " names no tensor");
  for (const auto& name : trainable.strings()) {
    require(by_hf.count(name), trainable.name() + ": the model has no tensor '" + name + "'");
    s.trainable.push_back(by_hf[name]);
  }
  train_only(s.model->parameters(), s.trainable, trainable.name());
  return s;
}

// Which named trainable set the listed tensors are, if any ("last:1"), for the report.
std::string named_set(SequenceClassifier& m, const std::vector<std::string>& names) {
  const std::set<std::string> wanted(names.begin(), names.end());
  std::vector<std::string> specs = {"head", "all"};
  for (int64_t n = 0; n <= m.body().config().n_layer; ++n)
    specs.push_back("last:" + std::to_string(n));
  const ParameterList params = m.parameters();
  std::vector<bool> saved;
  for (const auto& p : params) saved.push_back(p.param->trainable());
  std::string found;
  for (const auto& spec : specs) {
    apply_trainable(m, TrainableSet::parse(spec));
    std::set<std::string> got;
    for (const auto& p : params)
      if (p.param->trainable()) got.insert(p.name);
    if (got == wanted) found = spec;
  }
  for (size_t i = 0; i < params.size(); ++i) params[i].param->set_trainable(saved[i]);
  return found;
}

// The batch of reference.safetensors: input_ids [B, T] and labels [B].
struct ClassifyBatch {
  std::vector<int32_t> ids, labels;
  int64_t B = 0, T = 0;

  double loss_and_backward(SequenceClassifier& model) const {
    const double loss = model.forward_loss(ids.data(), labels.data(), B, T);
    model.backward();
    return loss;
  }
};

ClassifyBatch read_batch(const SafeTensors& ref) {
  ClassifyBatch b;
  Shape shape, label_shape;
  b.ids = reference_ids(ref, "input_ids", 2, &shape);
  b.B = shape[0];
  b.T = shape[1];
  b.labels = reference_ids(ref, "labels", 1, &label_shape);
  require(label_shape[0] == b.B, ref.source + ": labels must be [" + std::to_string(b.B) + "]");
  return b;
}

// Gradients (after backward): exactly the trainable tensors have one, and the reference
// has those.
CheckResult check_grads(const Setup& s, const SafeTensors& ref) {
  SequenceClassifier& model = *s.model;
  std::set<std::string> ref_grads;
  for (const auto& n : ref.names)
    if (n.rfind("grad.", 0) == 0) ref_grads.insert(n.substr(5));
  double worst = 0;
  std::string worst_name = "(none)";
  int64_t frozen_with_grad = 0;
  for (const auto& [name, param] : model.parameters()) {
    if (!param->trainable()) continue;
    const std::string key = "grad." + hf_name(name);
    require(ref.has(key), ref.source + ": missing " + key + " (listed as trainable)");
    ref_grads.erase(hf_name(name));
    const Tensor expected = ref.get(key).to_float();
    const Tensor ours = to_hf_layout(name, param->grad);
    check_shape(expected, ours.shape(), ref.source + ": " + key);
    const double err = relative_error(ours.data(), expected.data(), ours.numel());
    if (err >= worst) worst = err, worst_name = hf_name(name);
  }
  for (const auto& [name, param] : model.parameters())
    frozen_with_grad += !param->trainable() && param->grad.defined();
  require(ref_grads.empty(), ref.source + ": has grad." +
                                 (ref_grads.empty() ? "" : *ref_grads.begin()) +
                                 " for a tensor not listed in reference.json's trainable");
  const ParameterCounts counts = count_parameters(model.parameters());
  const std::string set = named_set(model, s.trainable);
  return make_check(
      "grad", frozen_with_grad ? std::numeric_limits<double>::infinity() : worst, 1e-4,
      "worst: " + worst_name + "; " + std::to_string(s.trainable.size()) + " tensors train (" +
          std::to_string(counts.trainable) + " values" + (set.empty() ? "" : ", = " + set) + "), " +
          std::to_string(counts.frozen) + " frozen");
}

// AdamW steps of the trainable tensors only, from the initial weights.
void check_adamw(const std::string& dir, const JsonField& info, const SafeTensors& ref,
                 const ClassifyBatch& b, std::vector<CheckResult>& results) {
  const AdamWReference a = read_adamw_reference(info["adamw"]);
  Setup t = load(dir, info);
  SequenceClassifier& trained = *t.model;
  const ParameterList params = trained.parameters();
  std::vector<Tensor> initial;
  for (const auto& p : params) initial.push_back(p.param->value.clone());
  const double worst_step =
      run_reference_adamw(a, params, [&] { return b.loss_and_backward(trained); });
  if (a.has_per_step)
    results.push_back(make_check("adamw.per_step", worst_step, 1e-4, "loss and grad norm"));
  double worst_param = 0;
  std::string worst_param_name = "(none)";
  int64_t frozen_moved = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& [name, param] = params[i];
    if (!param->trainable()) {
      for (int64_t k = 0; k < param->value.numel(); ++k)
        frozen_moved += param->value[k] != initial[i][k];
      continue;
    }
    const std::string key = "after_adamw." + hf_name(name);
    require(ref.has(key), ref.source + ": missing " + key);
    const Tensor expected = ref.get(key).to_float();
    const Tensor ours = to_hf_layout(name, param->value);
    check_shape(expected, ours.shape(), ref.source + ": " + key);
    const double err = relative_error(ours.data(), expected.data(), ours.numel());
    if (err >= worst_param) worst_param = err, worst_param_name = hf_name(name);
  }
  results.push_back(make_check(
      "adamw.params", frozen_moved ? std::numeric_limits<double>::infinity() : worst_param, 1e-4,
      "worst: " + worst_param_name +
          "; frozen tensors unchanged: " + (frozen_moved ? "NO" : "yes")));
}

}  // namespace

std::vector<CheckResult> verify_classify(const std::string& dir) {
  const nlohmann::json json = read_reference_json(dir);
  const JsonField info(json, dir + "/reference.json");
  require(info["task"].string() == "classify", info["task"].name() + " must be \"classify\"");
  const SafeTensors ref = load_safetensors(dir + "/reference.safetensors");
  const ClassifyBatch b = read_batch(ref);

  Setup s = load(dir, info);
  SequenceClassifier& model = *s.model;
  std::vector<CheckResult> results;
  model.zero_grad();
  const Tensor expected_logits = ref.get("logits").to_float();
  check_shape(expected_logits, {b.B, model.config().num_labels}, ref.source + ": logits");
  results.push_back(
      make_check("logits",
                 relative_error(model.forward(b.ids.data(), b.B, b.T).data(),
                                expected_logits.data(), b.B * model.config().num_labels),
                 1e-5, "pooling " + pooling_name(model.config().pooling)));
  const double loss = b.loss_and_backward(model);
  results.push_back(make_check("loss", relative_error(loss, info["loss"].number()), 1e-5));
  results.push_back(check_grads(s, ref));
  if (info.has("adamw")) check_adamw(dir, info, ref, b, results);
  return results;
}

}  // namespace tinylm::finetune
