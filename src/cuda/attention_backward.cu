// Attention backward on the GPU (CPU twins: ops/attention.h, attention.cpp and
// attention_tiled.cpp). Per set n, from the weights A [Tq, Tk] (kept by attention_forward,
// or recomputed from lse by the tiled backward as exp(S - lse)):
//   A' = A * drop_mask                       (dropout only)
//   dv = A'^T dy [Tk, Dv]                     (sgemm)
//   dA = (dy v^T) * drop_mask [Tq, Tk]        (sgemm, then the row kernel)
//   dS = A * (dA - rowsum(dA * A))            (one block per row, in place)
//   dq = dS k * scale [Tq, Dk] ;  dk = dS^T q * scale [Tk, Dk]   (sgemm)
// The rowsum is taken over dA * A as ops::ref does (for the tiled backward it equals
// rowsum(dy * y), which the CPU's tiled kernel uses). dq, dk, dv are overwritten.
#include "cuda/attention.cuh"
#include "cuda/blas.cuh"
#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/products.h"
#include "cuda/reduce.cuh"
#include "cuda/scratch.cuh"
#include "cuda/softmax.cuh"
#include "util/error.h"

namespace tinylm::cuda {

namespace {

// Row r of dA [N * Tq, Tk] becomes dS (in place), with A and drop_mask (may be null) of
// the same shape: dA *= drop_mask; dS = A * (dA - sum_j dA_j A_j). One warp per row.
__global__ void weights_grad_kernel(float* dA, const float* A, const float* drop_mask, int64_t Tk,
                                    int64_t rows) {
  const int64_t r = warp_row();
  if (r >= rows) return;
  const int lane = threadIdx.x & 31;
  float* d = dA + r * Tk;
  const float* a = A + r * Tk;
  const float* dm = drop_mask ? drop_mask + r * Tk : nullptr;
  float dot = 0.0f;
  for (int64_t j = lane; j < Tk; j += 32) {
    const float g = dm ? d[j] * dm[j] : d[j];
    d[j] = g;
    dot += g * a[j];
  }
  dot = warp_sum(dot);
  for (int64_t j = lane; j < Tk; j += 32) d[j] = a[j] * (d[j] - dot);
}

// Row r of S [N * Tq, Tk] (scale q k^T) becomes the weights exp(s - lse[r]) in place,
// s masked as in forward; a row whose lse is -inf (no key allowed) becomes zeros.
__global__ void weights_from_lse_kernel(float* S, const float* lse, attention::MaskView m) {
  const int64_t r = blockIdx.x;
  float* row = S + r * m.Tk;
  const float* add = m.row(r);
  const int64_t end = m.end(r);
  const float z = lse[r];
  for (int64_t j = threadIdx.x; j < m.Tk; j += blockDim.x) {
    const bool allowed = j < end && z != -INFINITY;
    row[j] = allowed ? expf((add ? row[j] + add[j] : row[j]) - z) : 0.0f;
  }
}

// The backward from the weights A [N, Tq, Tk]; work: scratch of the same size, which
// holds A' (with dropout) and then dA / dS.
void backward_from_weights(const float* dy, const float* q, const float* k, const float* v,
                           const float* A, const float* drop_mask, float* dq, float* dk, float* dv,
                           const ops::AttentionShape& s, float scale, float* work) {
  const int64_t N = s.N, Tq = s.Tq, Tk = s.Tk, Dk = s.Dk, Dv = s.Dv, TT = Tq * Tk;
  const float* weights = A;
  if (drop_mask) {  // A' = A * drop_mask
    multiply(A, drop_mask, work, N * TT);
    weights = work;
  }
  // dv [Tk, Dv] = A'^T dy  (A' stored [Tq, Tk])
  gemm(weights, dy, dv, Tk, Dv, Tq, /*trans_a=*/true, false, 1.0f, 0.0f, {N, TT, Tq * Dv, Tk * Dv});
  // dA [Tq, Tk] = dy v^T  (into work: A' is no longer needed)
  gemm(dy, v, work, Tq, Tk, Dv, false, /*trans_b=*/true, 1.0f, 0.0f, {N, Tq * Dv, Tk * Dv, TT});
  if (N * Tq > 0 && Tk > 0) {
    weights_grad_kernel<<<blocks_for(N * Tq, kRowsPerBlock), 32 * kRowsPerBlock>>>(
        work, A, drop_mask, Tk, N * Tq);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  // dq [Tq, Dk] = scale dS k ;  dk [Tk, Dk] = scale dS^T q
  gemm(work, k, dq, Tq, Dk, Tk, false, false, scale, 0.0f, {N, TT, Tk * Dk, Tq * Dk});
  gemm(work, q, dk, Tk, Dk, Tq, /*trans_a=*/true, false, scale, 0.0f, {N, TT, Tq * Dk, Tk * Dk});
}

}  // namespace

void attention_backward(const float* dy, const float* q, const float* k, const float* v,
                        const float* att, const float* drop_mask, float* dq, float* dk, float* dv,
                        const ops::AttentionShape& s, float scale) {
  attention::check(s, ops::AttentionMask{});
  if (s.N == 0) return;
  float* work = scratch<float>(ScratchSlot::kGradWeights, s.N * s.Tq * s.Tk);
  backward_from_weights(dy, q, k, v, att, drop_mask, dq, dk, dv, s, scale, work);
}

void attention_backward_tiled(const float* dy, const float* q, const float* k, const float* v,
                              const float* /*y*/, const float* lse, float* dq, float* dk, float* dv,
                              const ops::AttentionShape& s, float scale,
                              const ops::AttentionMask& mask) {
  const attention::MaskView m = attention::check(s, mask);
  if (s.N == 0) return;
  const int64_t count = s.N * s.Tq * s.Tk;
  float* A = scratch<float>(ScratchSlot::kWeights, count);
  float* work = scratch<float>(ScratchSlot::kGradWeights, count);
  attention::scores(q, k, A, s, scale);
  if (s.N * s.Tq > 0 && s.Tk > 0) {
    weights_from_lse_kernel<<<rows_grid(s.N * s.Tq), row_threads(s.Tk)>>>(A, lse, m);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  backward_from_weights(dy, q, k, v, A, nullptr, dq, dk, dv, s, scale, work);
}

}  // namespace tinylm::cuda
