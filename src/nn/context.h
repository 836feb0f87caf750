// What a forward pass needs to know beyond its inputs: training (dropout on) or not,
// and the random generator dropout draws from (owned by the model, saved in checkpoints).
#pragma once
#include "util/rng.h"

namespace tinylm::nn {

struct Context {
  bool training = false;
  Rng* rng = nullptr;  // required when training with dropout > 0
};

}  // namespace tinylm::nn
