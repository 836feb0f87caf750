// Attention forward on the GPU (CPU twins: ops/attention.h, attention.cpp and
// attention_tiled.cpp). Per set n (all N sets in one strided-batched sgemm each):
//   S = q k^T * scale [Tq, Tk]          (sgemm)
//   A = masked row softmax of S         (one warp per row; -inf where the causal or the
//                                        additive mask forbids; a row with no key: zeros)
//   A' = A * drop_mask                  (dropout only: the mask drawn by the same warp, as
//                                        it writes A, from the caller's key)
//   y = A' v [Tq, Dv]                   (sgemm)
// attention_forward keeps A in att; the tiled forward keeps only lse [N, Tq]: fused on
// tensor cores (flash_attention.cu) when the precision and head sizes allow, else the
// steps above with S / A in scratch memory.
#include <string>
#include <vector>

#include "cuda/attention.cuh"
#include "cuda/blas.cuh"
#include "cuda/check.cuh"
#include "cuda/device.h"
#include "cuda/dropout.cuh"
#include "cuda/flash_attention.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/products.h"
#include "cuda/scratch.cuh"
#include "cuda/softmax.cuh"
#include "ops/attention_check.h"
#include "ops/dropout.h"
#include "util/error.h"

namespace tinylm::cuda {

namespace attention {

namespace {

// One warp per row r of S [N * Tq, Tk], in place; lse [N * Tq] if not null. With
// dropout (p > 0) the weights are then multiplied by the mask drawn from key (element
// r * Tk + j), in place: the mask itself is not stored.
__global__ void masked_softmax_kernel(float* S, float* lse, MaskView m, int64_t rows, float p,
                                      float scale, uint64_t key) {
  const int64_t r = warp_row();
  if (r >= rows) return;
  float* row = S + r * m.Tk;
  const float z = warp_softmax_row(row, m.row(r), row, m.end(r), m.Tk);
  if (lse && (threadIdx.x & 31) == 0) lse[r] = z;
  if (p > 0.0f)
    for (int64_t j = threadIdx.x & 31; j < m.Tk; j += 32)
      row[j] = row[j] == 0.0f ? 0.0f : row[j] * dropout_keep(key, r * m.Tk + j, p, scale);
}

// The same, then dropout in the same pass: drop_mask [N * Tq, Tk] drawn by
// ops::dropout_draw_mask's rule (element r * Tk + j of key) and dropped = A * drop_mask.
// Each lane reads back only the entries of the row it wrote itself.
__global__ void masked_softmax_dropout_kernel(float* S, MaskView m, int64_t rows, float* drop_mask,
                                              float* dropped, float p, float scale, uint64_t key) {
  const int64_t r = warp_row();
  if (r >= rows) return;
  float* row = S + r * m.Tk;
  warp_softmax_row(row, m.row(r), row, m.end(r), m.Tk);
  for (int64_t j = threadIdx.x & 31; j < m.Tk; j += 32) {
    const int64_t i = r * m.Tk + j;
    const float keep = dropout_keep(key, i, p, scale);
    drop_mask[i] = keep;
    dropped[i] = row[j] * keep;
  }
}

}  // namespace

void check_dropout(float p) {
  require(p >= 0.0f && p <= 1.0f, [&] {
    return "attention: dropout probability " + std::to_string(p) + " is outside [0, 1]";
  });
}

MaskView check(const ops::AttentionShape& s, const ops::AttentionMask& mask) {
  ops::check_attention(s, mask);
  const int64_t per_set = mask.additive && s.N > 0 ? s.N / mask.additive_sets : 1;
  return {mask.additive, per_set, s.Tq, s.Tk, mask.causal};
}

void scores(const float* q, const float* k, float* S, const ops::AttentionShape& s, float scale) {
  gemm(q, k, S, s.Tq, s.Tk, s.Dk, false, /*trans_b=*/true, scale, 0.0f,
       {s.N, s.Tq * s.Dk, s.Tk * s.Dk, s.Tq * s.Tk});
}

void masked_softmax(float* S, float* lse, const ops::AttentionShape& s, const MaskView& m, float p,
                    uint64_t key) {
  const int64_t rows = s.N * s.Tq;
  if (rows <= 0) return;
  const float scale = p > 0.0f ? 1.0f / (1.0f - p) : 1.0f;
  masked_softmax_kernel<<<blocks_for(rows, kRowsPerBlock), 32 * kRowsPerBlock>>>(S, lse, m, rows, p,
                                                                                 scale, key);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void masked_softmax_dropout(float* S, float* drop_mask, float* dropped,
                            const ops::AttentionShape& s, const MaskView& m, float p,
                            uint64_t key) {
  const int64_t rows = s.N * s.Tq;
  if (rows <= 0) return;
  masked_softmax_dropout_kernel<<<blocks_for(rows, kRowsPerBlock), 32 * kRowsPerBlock>>>(
      S, m, rows, drop_mask, dropped, p, 1.0f / (1.0f - p), key);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace attention

namespace {

// y [N, Tq, Dv] = A v, set by set (A [N, Tq, Tk]).
void weights_times_values(const float* A, const float* v, float* y, const ops::AttentionShape& s) {
  gemm(A, v, y, s.Tq, s.Dv, s.Tk, false, false, 1.0f, 0.0f,
       {s.N, s.Tq * s.Tk, s.Tk * s.Dv, s.Tq * s.Dv});
}

}  // namespace

void attention_forward(const float* q, const float* k, const float* v, float* y, float* att,
                       const ops::AttentionShape& s, float scale, const ops::AttentionMask& mask,
                       float dropout_p, float* drop_mask, uint64_t dropout_key) {
  const attention::MaskView m = attention::check(s, mask);
  attention::check_dropout(dropout_p);
  const bool drop = dropout_p > 0.0f;
  require(!drop || drop_mask, "attention: dropout needs a mask buffer");
  const int64_t count = s.N * s.Tq * s.Tk;
  if (drop_mask && !drop) fill(drop_mask, count, 1.0f);
  if (s.N == 0 || s.Tq == 0) return;

  attention::scores(q, k, att, s, scale);
  if (!drop) {
    attention::masked_softmax(att, nullptr, s, m);
    weights_times_values(att, v, y, s);
    return;
  }
  float* dropped = scratch<float>(ScratchSlot::kWeights, count);  // A' = A * drop_mask
  attention::masked_softmax_dropout(att, drop_mask, dropped, s, m, dropout_p, dropout_key);
  weights_times_values(dropped, v, y, s);
}

void attention_forward_tiled(const float* q, const float* k, const float* v, float* y, float* lse,
                             const ops::AttentionShape& s, float scale,
                             const ops::AttentionMask& mask, float dropout_p,
                             uint64_t dropout_key) {
  const attention::MaskView m = attention::check(s, mask);
  attention::check_dropout(dropout_p);
  if (s.N == 0 || s.Tq == 0) return;
  if (flash::fits(s)) {
    flash::forward(q, k, v, y, lse, s, scale, m, dropout_p, dropout_key);
    return;
  }
  float* A = scratch<float>(ScratchSlot::kWeights, s.N * s.Tq * s.Tk);  // A, then A * mask
  attention::scores(q, k, A, s, scale);
  attention::masked_softmax(A, lse, s, m, dropout_p, dropout_key);
  weights_times_values(A, v, y, s);
}

}  // namespace tinylm::cuda
