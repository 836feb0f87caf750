// Inverted dropout: y = x * keep / (1 - p), keep ~ Bernoulli(1 - p), element i's draw a
// function of i and the key (so a key fixes the mask, on every device). mask [N]
// receives keep / (1 - p) (0 or 1/(1-p)) for backward: dx = dy * mask. p == 0 copies x and fills
// mask with 1. (The caller picks the key: nn::Context::dropout_key.)
#pragma once
#include <cstdint>

namespace tinylm::ops {

void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, uint64_t key);
void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N);

// The mask alone, as dropout_forward draws it: for each i u_i = counter_uniform(key, i)
// (util/counter_rng.h); element i is kept iff u_i >= p, and mask[i] = kept ? 1/(1-p) : 0.
// p must be in [0, 1] (InputError otherwise); p == 0 fills 1 (the key is not used).
// Attention dropout uses the same rule, so a key fixes every dropout mask, and a GPU
// draws the mask in its own threads.
void dropout_draw_mask(float* mask, int64_t N, float p, uint64_t key);

namespace ref {
void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, uint64_t key);
void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N);
}  // namespace ref

}  // namespace tinylm::ops
