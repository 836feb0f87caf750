// Checks a model folder against the reference outputs stored beside it, in the layout
// of the Hugging Face fixtures: config.json + model.safetensors (the model),
// reference.json + reference.safetensors (what the reference computed). Every check the
// reference supports is run:
//   logits    ||a - b|| / ||b|| <= 1e-5         loss  relative <= 1e-5
//   grad      each parameter's gradient, relative <= 1e-4 (the worst is reported)
//   adamw     per-step loss / grad norm, and parameters after the steps, relative <= 1e-4
//   greedy    the greedy continuation of the prompt ids, identical
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/adamw.h"

namespace tinylm {

struct CheckResult {
  std::string name;    // "logits", "loss", "grad", "adamw", "greedy", ...
  double error = 0;    // relative error (greedy: number of differing ids)
  double tolerance = 0;
  bool pass = false;
  std::string detail;  // e.g. the worst tensor
};

std::vector<CheckResult> verify_reference(const std::string& dir);

// What reference.json asks to check, read through the checked accessor: a missing or
// ill-typed field, an id outside [0, vocab), or an absurd step count is an InputError
// naming the file and the field.
struct ReferenceSpec {
  std::optional<double> loss;
  struct AdamWSteps {
    AdamWConfig config;
    double grad_clip = 0;  // global-norm clipping before each step (0: none)
    int64_t steps = 0;
    bool has_per_step = false;
    std::vector<double> step_loss, step_grad_norm;  // per_step entries given (norm: if clipping)
  };
  std::optional<AdamWSteps> adamw;
  struct Greedy {
    std::vector<int32_t> prompt, expected;
    int64_t max_new_tokens = 0;
  };
  std::optional<Greedy> greedy;
};
ReferenceSpec parse_reference_json(const nlohmann::json& j, const std::string& path, int64_t vocab);

}  // namespace tinylm
