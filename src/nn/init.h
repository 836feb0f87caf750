// Weight initialisation (GPT-2 / nanoGPT): normal(0, std) for matrices and embeddings,
// zeros for biases, ones for LayerNorm gains.
#pragma once
#include "tensor/tensor.h"
#include "util/rng.h"

namespace tinylm::nn {

inline void init_normal(Tensor& t, Rng& rng, float std) {
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = std * rng.normal();
}

}  // namespace tinylm::nn
