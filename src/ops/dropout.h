// Inverted dropout: y = x * keep / (1 - p), keep ~ Bernoulli(1 - p), element i's draw a
// function of i and one key drawn from rng (so a seed fixes the mask, on every device). mask [N]
// receives keep / (1 - p) (0 or 1/(1-p)) for backward: dx = dy * mask. p == 0 copies x and fills
// mask with 1.
#pragma once
#include <cstdint>

#include "util/rng.h"

namespace tinylm::ops {

void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, Rng& rng);
void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N);

// The mask alone, as dropout_forward draws it: one key = rng.next_u64(), then for each i
// u_i = counter_uniform(key, i) (util/counter_rng.h); element i is kept iff u_i >= p, and
// mask[i] = kept ? 1/(1-p) : 0. p must be in [0, 1] (InputError otherwise); p == 0 fills
// 1 and draws nothing. Attention dropout uses the same rule, so a seed fixes every
// dropout mask, and a GPU draws the mask in its own threads.
void dropout_draw_mask(float* mask, int64_t N, float p, Rng& rng);

namespace ref {
void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, Rng& rng);
void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N);
}  // namespace ref

}  // namespace tinylm::ops
