#include "verify/verify_lm.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "generate/generate.h"
#include "io/safetensors.h"
#include "model/hf_gpt2.h"
#include "model/hf_lm.h"
#include "optim/adamw.h"
#include "run/train_config.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// ||a - b|| / ||b||, in double.
double relative_error(const float* a, const float* b, int64_t n) {
  double diff = 0, ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    ref += static_cast<double>(b[i]) * b[i];
  }
  return ref > 0 ? std::sqrt(diff / ref) : std::sqrt(diff);
}

double relative_error(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-30);
}

CheckResult make(const std::string& name, double error, double tol, std::string detail = "") {
  return {name, error, tol, error <= tol, std::move(detail)};
}

// The most AdamW steps a reference may ask to replay (a fixture runs a handful).
constexpr int64_t kMaxReferenceSteps = 100000;

// Compares every parameter (in HF layout) with reference tensors "<prefix><hf name>".
CheckResult compare_params(const std::string& check, GPT& model, const SafeTensors& ref,
                           const std::string& prefix, bool grads, double tol) {
  double worst = 0;
  std::string worst_name = "(none)";
  for (auto& [name, param] : model.parameters()) {
    const std::string key = prefix + hf_param_name(name);
    require(ref.has(key), "reference.safetensors: missing " + key);
    const Tensor expected = ref.get(key).to_float();
    const Tensor ours = to_hf_layout(name, (grads ? param->grad : param->value).to(Device::kCpu));
    check_shape(expected, ours.shape(), "reference.safetensors: " + key);
    const double err = relative_error(ours.data(), expected.data(), ours.numel());
    if (err >= worst) worst = err, worst_name = hf_param_name(name);
  }
  return make(check, worst, tol, "worst: " + worst_name);
}

}  // namespace

AdamWReference read_adamw_reference(const JsonField& a) {
  AdamWReference s;
  s.config.lr = a["lr"].float_number();
  const JsonField betas = a["betas"];
  require(betas.size() == 2, betas.name() + " must hold two numbers");
  s.config.beta1 = betas[0].float_number();
  s.config.beta2 = betas[1].float_number();
  require(s.config.beta1 >= 0 && s.config.beta1 < 1 && s.config.beta2 >= 0 && s.config.beta2 < 1,
          betas.name() + " must be in [0, 1)");
  s.config.eps = a["eps"].float_number();
  const JsonField wd = a["weight_decay"];
  if (wd.is_number()) {
    s.config.weight_decay = wd.float_number();
  } else {
    const std::string text = wd.string();
    char* end = nullptr;
    s.config.weight_decay = std::strtof(text.c_str(), &end);
    require(end != text.c_str() && std::isfinite(s.config.weight_decay),
            wd.name() + " must be a number or start with one");
  }
  require(s.config.weight_decay >= 0, wd.name() + " must be >= 0");
  for (const char* key : {"grad_clip_global_norm", "grad_clip"}) {
    if (!a.has(key) || a[key].is_null()) continue;
    s.grad_clip = a[key].number();
    require(s.grad_clip > 0, a[key].name() + " must be positive or null");
  }
  s.steps = a["steps"].integer(0, kMaxReferenceSteps);
  s.has_per_step = a.has("per_step");
  if (s.has_per_step) {
    const JsonField per_step = a["per_step"];
    for (size_t i = 0; i < per_step.size() && static_cast<int64_t>(i) < s.steps; ++i) {
      const JsonField step = per_step[i];
      s.step_loss.push_back(step["loss"].number());
      if (s.grad_clip > 0 || step.has("grad_norm_before_clip"))
        s.step_grad_norm.push_back(step["grad_norm_before_clip"].number());
    }
  }
  return s;
}

ReferenceSpec parse_reference_json(const nlohmann::json& j, const std::string& path,
                                   int64_t vocab) {
  const JsonField info(j, path);
  info.require_object();
  ReferenceSpec spec;
  if (info.has("loss")) spec.loss = info["loss"].number();
  if (info.has("adamw")) spec.adamw = read_adamw_reference(info["adamw"]);
  if (info.has("greedy")) {
    const JsonField g = info["greedy"];
    const auto as_ids = [&](const JsonField& f) {
      std::vector<int32_t> out;
      for (int64_t v : f.integers(0, vocab - 1)) out.push_back(static_cast<int32_t>(v));
      return out;
    };
    ReferenceSpec::Greedy greedy;
    greedy.prompt = as_ids(g["prompt_ids"]);
    greedy.expected = as_ids(g["output_ids"]);
    require(!greedy.prompt.empty(), g["prompt_ids"].name() + " is empty");
    greedy.max_new_tokens = g.has("new_tokens") ? g["new_tokens"].integer(0, kMaxNewTokens)
                                                : static_cast<int64_t>(greedy.expected.size());
    spec.greedy = greedy;
  }
  return spec;
}

namespace {

// The batch of reference.safetensors: input_ids and targets [B, T], every id in
// [0, vocab), T within the model's context.
struct ReferenceBatch {
  std::vector<int32_t> ids, targets;
  int64_t B = 0, T = 0;
};

ReferenceBatch read_reference_batch(const SafeTensors& ref, const GPTConfig& config) {
  const int64_t vocab = config.vocab_size;
  const auto checked_ids = [&](const std::string& name) {
    std::vector<int32_t> ids;
    for (int64_t v : ref.get(name).to_int64()) {
      require(v >= 0 && v < vocab, "reference.safetensors: " + name + " holds id " +
                                       std::to_string(v) + ", outside the vocabulary [0, " +
                                       std::to_string(vocab) + ")");
      ids.push_back(static_cast<int32_t>(v));
    }
    return ids;
  };
  ReferenceBatch batch{checked_ids("input_ids"), checked_ids("targets")};
  const Shape& shape = ref.get("input_ids").shape;
  require(shape.size() == 2 && shape[0] > 0 && shape[1] > 0,
          "reference.safetensors: input_ids must be [B, T] with B, T >= 1");
  require(ref.get("targets").shape == shape,
          "reference.safetensors: targets has shape " + shape_str(ref.get("targets").shape) +
              ", input_ids " + shape_str(shape) + " (they must match)");
  batch.B = shape[0];
  batch.T = shape[1];
  require(batch.T <= config.block_size,
          "reference.safetensors: input_ids has T = " + std::to_string(batch.T) +
              ", more than the model's context (" + std::to_string(config.block_size) + ")");
  return batch;
}

// Logits (if the reference has them), loss (if reference.json has it) and the gradients
// of every parameter (if the reference has them).
void check_forward_backward(GPT& model, const SafeTensors& ref, const ReferenceSpec& spec,
                            const ReferenceBatch& b, std::vector<CheckResult>& results) {
  model.zero_grad();
  const double loss = model.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T);
  if (ref.has("logits")) {
    const Tensor expected = ref.get("logits").to_float();
    const Tensor logits = model.forward(b.ids.data(), b.B, b.T).to(Device::kCpu);
    check_shape(expected, logits.shape(), "reference.safetensors: logits");
    results.push_back(
        make("logits", relative_error(logits.data(), expected.data(), logits.numel()), 1e-5));
    model.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T);  // restore the loss state
  }
  if (spec.loss) results.push_back(make("loss", relative_error(loss, *spec.loss), 1e-5));
  if (ref.has("grad." + hf_param_name(model.parameters().front().name))) {
    model.backward();
    results.push_back(compare_params("grad", model, ref, "grad.", true, 1e-4));
  }
}

// The reference's AdamW steps replayed on `trained` (the initial weights): each step's loss
// and gradient norm if the reference logged them, and the parameters after the steps.
void check_adamw_steps(GPT& trained, const SafeTensors& ref, const AdamWReference& a,
                       const ReferenceBatch& b, std::vector<CheckResult>& results) {
  AdamW opt(trained.parameters(), a.config);
  double worst_step = 0;
  for (int64_t s = 0; s < a.steps; ++s) {
    trained.zero_grad();
    const double step_loss = trained.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T);
    trained.backward();
    const double norm = clip_gradients(  // the global norm; no clipping when grad_clip is 0
        trained.parameters(),
        a.grad_clip > 0 ? a.grad_clip : std::numeric_limits<double>::infinity());
    const auto i = static_cast<size_t>(s);
    if (i < a.step_loss.size())
      worst_step = std::max(worst_step, relative_error(step_loss, a.step_loss[i]));
    if (i < a.step_grad_norm.size())
      worst_step = std::max(worst_step, relative_error(norm, a.step_grad_norm[i]));
    opt.step(a.config.lr);
  }
  if (a.has_per_step) results.push_back(make("adamw.per_step", worst_step, 1e-4));
  results.push_back(compare_params("adamw.params", trained, ref, "after_adamw.", false, 1e-4));
}

// Greedy continuation (full recompute at each step, as the reference did). A reference
// script that ran its AdamW steps in place generated from the trained weights: if
// `trained` (null when no steps ran) gives the expected ids, say so rather than fail.
CheckResult check_greedy(GPT& model, GPT* trained, const ReferenceSpec::Greedy& g) {
  GenerateOptions opts;
  opts.max_new_tokens = g.max_new_tokens;
  opts.sampling.greedy = true;
  opts.use_cache = false;
  const auto differing = [&](GPT& m, std::vector<int32_t>& got) {
    Rng rng(0);
    got = generate(m, g.prompt, opts, rng);
    int64_t n =
        std::abs(static_cast<int64_t>(got.size()) - static_cast<int64_t>(g.expected.size()));
    for (size_t i = 0; i < std::min(got.size(), g.expected.size()); ++i)
      n += got[i] != g.expected[i];
    return n;
  };
  std::vector<int32_t> got, got_trained;
  int64_t differ = differing(model, got);
  std::string detail;
  if (differ && trained && differing(*trained, got_trained) == 0) {
    differ = 0;
    detail = "matches the weights after the AdamW steps (the reference generated after them)";
  } else if (differ) {
    detail = "got";
    for (int32_t id : got) {
      detail += ' ';
      detail += std::to_string(id);
    }
  }
  return make("greedy", static_cast<double>(differ), 0, detail);
}

}  // namespace

std::vector<CheckResult> verify_reference(const std::string& dir, Device device) {
  const std::string info_path = dir + "/reference.json";
  const nlohmann::json info = read_json_file(info_path);
  JsonField(info, info_path).require_object();
  const SafeTensors ref = load_safetensors(dir + "/reference.safetensors");
  std::unique_ptr<GPT> model = load_hf_lm(dir);
  model->to(device);
  const ReferenceSpec spec = parse_reference_json(info, info_path, model->config().vocab_size);
  const ReferenceBatch batch = read_reference_batch(ref, model->config());

  std::vector<CheckResult> results;
  check_forward_backward(*model, ref, spec, batch, results);
  std::unique_ptr<GPT> trained;  // the model after the AdamW steps, if the reference ran them
  if (spec.adamw && ref.has("after_adamw." + hf_param_name(model->parameters().front().name))) {
    trained = load_hf_lm(dir);
    trained->to(device);
    check_adamw_steps(*trained, ref, *spec.adamw, batch, results);
  }
  if (spec.greedy) results.push_back(check_greedy(*model, trained.get(), *spec.greedy));
  // A reference that checks nothing proves nothing: "all checks passed" needs a check.
  require(!results.empty(), dir +
                                ": the reference checks nothing (reference.json has no loss, "
                                "adamw or greedy, and reference.safetensors no logits or "
                                "gradients)");
  return results;
}

}  // namespace tinylm
