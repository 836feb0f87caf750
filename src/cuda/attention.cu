// Attention forward on the GPU (CPU twins: ops/attention.h, attention.cpp and
// attention_tiled.cpp). Per set n (all N sets in one strided-batched sgemm each):
//   S = q k^T * scale [Tq, Tk]          (sgemm)
//   A = masked row softmax of S         (one block per row; -inf where the causal or the
//                                        additive mask forbids; a row with no key: zeros)
//   A' = A * drop_mask                  (dropout only; the mask drawn on the host)
//   y = A' v [Tq, Dv]                   (sgemm)
// attention_forward keeps A in att; the tiled forward keeps only lse [N, Tq] and holds
// S / A in scratch memory.
#include <string>
#include <vector>

#include "cuda/attention.cuh"
#include "cuda/blas.cuh"
#include "cuda/check.cuh"
#include "cuda/device.h"
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

// One block per row r of S [N * Tq, Tk], in place; lse [N * Tq] if not null.
__global__ void masked_softmax_kernel(float* S, float* lse, MaskView m) {
  __shared__ float scratch[32];
  const int64_t r = blockIdx.x;
  float* row = S + r * m.Tk;
  const float z = block_softmax_row(row, m.row(r), row, m.end(r), m.Tk, scratch);
  if (lse && threadIdx.x == 0) lse[r] = z;
}

}  // namespace

MaskView check(const ops::AttentionShape& s, const ops::AttentionMask& mask) {
  ops::check_attention(s, mask);
  const int64_t per_set = mask.additive && s.N > 0 ? s.N / mask.additive_sets : 1;
  return {mask.additive, per_set, s.Tq, s.Tk, mask.causal};
}

void scores(const float* q, const float* k, float* S, const ops::AttentionShape& s, float scale) {
  gemm(q, k, S, s.Tq, s.Tk, s.Dk, false, /*trans_b=*/true, scale, 0.0f,
       {s.N, s.Tq * s.Dk, s.Tk * s.Dk, s.Tq * s.Tk});
}

void masked_softmax(float* S, float* lse, const ops::AttentionShape& s, const MaskView& m) {
  const int64_t rows = s.N * s.Tq;
  if (rows <= 0) return;
  masked_softmax_kernel<<<rows_grid(rows), row_threads(s.Tk)>>>(S, lse, m);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace attention

namespace {

// y [N, Tq, Dv] = A v, set by set (A [N, Tq, Tk]).
void weights_times_values(const float* A, const float* v, float* y, const ops::AttentionShape& s) {
  gemm(A, v, y, s.Tq, s.Dv, s.Tk, false, false, 1.0f, 0.0f,
       {s.N, s.Tq * s.Tk, s.Tk * s.Dv, s.Tq * s.Dv});
}

// drop_mask [count]: drawn on the device by the rule of ops::dropout_draw_mask (p > 0: the
// mask of ref and cpu), or 1 everywhere when p == 0.
void fill_drop_mask(float* drop_mask, int64_t count, float p, uint64_t key) {
  if (p == 0.0f) {
    fill(drop_mask, count, 1.0f);
    return;
  }
  draw_dropout_mask(drop_mask, count, p, key);
}

}  // namespace

void attention_forward(const float* q, const float* k, const float* v, float* y, float* att,
                       const ops::AttentionShape& s, float scale, const ops::AttentionMask& mask,
                       float dropout_p, float* drop_mask, uint64_t dropout_key) {
  const attention::MaskView m = attention::check(s, mask);
  require(dropout_p >= 0.0f && dropout_p <= 1.0f, [&] {
    return "attention: dropout probability " + std::to_string(dropout_p) + " is outside [0, 1]";
  });
  const bool drop = dropout_p > 0.0f;
  require(!drop || drop_mask, "attention: dropout needs a mask buffer");
  const int64_t count = s.N * s.Tq * s.Tk;
  if (drop_mask) fill_drop_mask(drop_mask, count, dropout_p, dropout_key);
  if (s.N == 0 || s.Tq == 0) return;

  attention::scores(q, k, att, s, scale);
  attention::masked_softmax(att, nullptr, s, m);
  const float* weights = att;
  if (drop) {  // A' = A * drop_mask; att keeps A
    float* dropped = scratch<float>(ScratchSlot::kWeights, count);
    multiply(att, drop_mask, dropped, count);
    weights = dropped;
  }
  weights_times_values(weights, v, y, s);
}

void attention_forward_tiled(const float* q, const float* k, const float* v, float* y, float* lse,
                             const ops::AttentionShape& s, float scale,
                             const ops::AttentionMask& mask) {
  const attention::MaskView m = attention::check(s, mask);
  if (s.N == 0 || s.Tq == 0) return;
  float* A = scratch<float>(ScratchSlot::kWeights, s.N * s.Tq * s.Tk);
  attention::scores(q, k, A, s, scale);
  attention::masked_softmax(A, lse, s, m);
  weights_times_values(A, v, y, s);
}

}  // namespace tinylm::cuda
