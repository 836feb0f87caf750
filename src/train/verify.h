// Checks a model folder against the reference outputs stored beside it, in the layout
// of the Hugging Face fixtures: config.json + model.safetensors (the model),
// reference.json + reference.safetensors (what the reference computed). Every check the
// reference supports is run:
//   logits    ||a - b|| / ||b|| <= 1e-5         loss  relative <= 1e-5
//   grad      each parameter's gradient, relative <= 1e-4 (the worst is reported)
//   adamw     per-step loss / grad norm, and parameters after the steps, relative <= 1e-4
//   greedy    the greedy continuation of the prompt ids, identical
#pragma once
#include <string>
#include <vector>

namespace tinylm {

struct CheckResult {
  std::string name;    // "logits", "loss", "grad", "adamw", "greedy", ...
  double error = 0;    // relative error (greedy: number of differing ids)
  double tolerance = 0;
  bool pass = false;
  std::string detail;  // e.g. the worst tensor
};

std::vector<CheckResult> verify_reference(const std::string& dir);

}  // namespace tinylm
