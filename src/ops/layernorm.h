// Layer normalisation over the last dimension, as torch.nn.LayerNorm:
//   x [N, C] -> y [N, C] = (x - mean) * rstd * w + b, rstd = 1/sqrt(var + eps),
//   var the biased variance. w [C]; b [C] may be null (no bias).
//   forward also writes mean [N] and rstd [N] for backward.
//   backward: dx [N, C] (overwritten), dw [C] += ..., db [C] += ... (dw, db each skipped if
//             null: a frozen parameter has no gradient).
#pragma once
#include <cstdint>

namespace tinylm::ops {

void layernorm_forward(const float* x, const float* w, const float* b, float* y, float* mean,
                       float* rstd, int64_t N, int64_t C, float eps);
void layernorm_backward(const float* dy, const float* x, const float* w, const float* mean,
                        const float* rstd, float* dx, float* dw, float* db, int64_t N, int64_t C);

namespace ref {
void layernorm_forward(const float* x, const float* w, const float* b, float* y, float* mean,
                       float* rstd, int64_t N, int64_t C, float eps);
void layernorm_backward(const float* dy, const float* x, const float* w, const float* mean,
                        const float* rstd, float* dx, float* dw, float* db, int64_t N, int64_t C);
}  // namespace ref

}  // namespace tinylm::ops
