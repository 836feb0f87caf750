// Checks a model folder against the reference outputs stored beside it, in the layout
// of the Hugging Face fixtures: config.json + model.safetensors (the model),
// reference.json + reference.safetensors (what the reference computed). Every check the
// reference supports is run:
//   logits    ||a - b|| / ||b|| <= 1e-5         loss  relative <= 1e-5
//   grad      each parameter's gradient, relative <= 1e-4 (the worst is reported)
//   adamw     per-step loss / grad norm, and parameters after the steps, relative <= 1e-4
//   greedy    the greedy continuation of the prompt ids, identical
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "optim/adamw.h"
#include "util/json_read.h"

namespace tinylm {

struct CheckResult {
  std::string name;  // "logits", "loss", "grad", "adamw", "greedy", ...
  double error = 0;  // relative error (greedy: number of differing ids)
  double tolerance = 0;
  bool pass = false;
  std::string detail;  // e.g. the worst tensor
};

std::vector<CheckResult> verify_reference(const std::string& dir, Device device = Device::kCpu);

// What reference.json asks to check, read through the checked accessor: a missing or
// ill-typed field, an id outside [0, vocab), or an absurd step count is an InputError
// naming the file and the field.
// The "adamw" section of a reference.json (the language-model and the fine-tuning
// fixtures alike): AdamW's settings and the reference's figures after each step.
struct AdamWReference {
  AdamWConfig config;
  double grad_clip = 0;  // global-norm clipping before each step (0: none)
  int64_t steps = 0;
  bool has_per_step = false;
  std::vector<double> step_loss, step_grad_norm;  // per_step entries given (norm: if given)
};
// lr, eps, betas [2] in [0, 1), weight_decay (a number, or a sentence that starts with
// one: "0.1 on tensors with 2+ dims"), grad_clip_global_norm or grad_clip (absent or
// null: none), steps in [0, 100000], per_step [{loss, grad_norm_before_clip}] (the norm
// required when clipping). InputError naming the field otherwise.
AdamWReference read_adamw_reference(const JsonField& adamw);

struct ReferenceSpec {
  std::optional<double> loss;
  std::optional<AdamWReference> adamw;
  struct Greedy {
    std::vector<int32_t> prompt, expected;
    int64_t max_new_tokens = 0;
  };
  std::optional<Greedy> greedy;
};
ReferenceSpec parse_reference_json(const nlohmann::json& j, const std::string& path, int64_t vocab);

}  // namespace tinylm
