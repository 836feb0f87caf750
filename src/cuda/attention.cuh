// What attention.cu (forward) and attention_backward.cu share (*.cu only). Shapes as in
// ops/attention.h: per set n, q [Tq, Dk], k [Tk, Dk], v [Tk, Dv], S and A [Tq, Tk].
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "ops/attention.h"

namespace tinylm::cuda::attention {

// The masks as a kernel sees them, for row r = n * Tq + i of the [N * Tq, Tk] scores.
struct MaskView {
  const float* additive;  // [M, Tq, Tk] or null
  int64_t per_set;        // N / M: consecutive sets that share one additive set
  int64_t Tq, Tk;
  bool causal;

  // Keys row r may see because of causality: [0, end) (query i sees j <= i + Tk - Tq).
  __device__ int64_t end(int64_t r) const {
    if (!causal) return Tk;
    const int64_t e = r % Tq + 1 + Tk - Tq;
    return e < 0 ? 0 : (e > Tk ? Tk : e);
  }
  // The additive mask's row for row r, or null.
  __device__ const float* row(int64_t r) const {
    if (!additive) return nullptr;
    const int64_t n = r / Tq, i = r % Tq;
    return additive + ((n / per_set) * Tq + i) * Tk;
  }
};

// Dropout's probability must be in [0, 1] (InputError).
void check_dropout(float p);

// The shape and mask checks of the CPU kernels (InputError); then the kernels' view.
MaskView check(const ops::AttentionShape& s, const ops::AttentionMask& mask);

// S [N, Tq, Tk] = scale * q k^T, set by set (one strided-batched sgemm).
void scores(const float* q, const float* k, float* S, const ops::AttentionShape& s, float scale);

// In place over S [N, Tq, Tk]: the masked row softmax (weights A); lse [N, Tq] (if not
// null) gets each row's log-sum-exp of the masked scores, -inf for a row with no key.
// With dropout (p > 0): A * mask instead (the mask drawn from key, not stored).
void masked_softmax(float* S, float* lse, const ops::AttentionShape& s, const MaskView& m,
                    float p = 0.0f, uint64_t key = 0);

// The same (no lse), then dropout in the same pass (0 < p <= 1): drop_mask [N, Tq, Tk]
// drawn from key by ops::dropout_draw_mask's rule, dropped [N, Tq, Tk] = A * drop_mask.
void masked_softmax_dropout(float* S, float* drop_mask, float* dropped,
                            const ops::AttentionShape& s, const MaskView& m, float p, uint64_t key);

}  // namespace tinylm::cuda::attention
