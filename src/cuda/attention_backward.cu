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
// The tiled backward runs fused on tensor cores (flash_attention.cu) when it can; with
// dropout, the cuBLAS path draws the mask again from the key where it needs it.
#include "cuda/attention.cuh"
#include "cuda/blas.cuh"
#include "cuda/check.cuh"
#include "cuda/dropout.cuh"
#include "cuda/flash_attention.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/products.h"
#include "cuda/reduce.cuh"
#include "cuda/scratch.cuh"
#include "cuda/softmax.cuh"
#include "util/error.h"

namespace tinylm::cuda {

namespace {

// The dropout mask as backward sees it: stored (attention_forward's drop_mask), drawn
// again from its key (the tiled contract), or none.
struct DropView {
  const float* mask = nullptr;
  float p = 0.0f, scale = 1.0f;
  uint64_t key = 0;

  __host__ __device__ bool on() const { return mask != nullptr || p > 0.0f; }
  __device__ float keep(int64_t i) const {
    if (mask) return mask[i];
    return p > 0.0f ? dropout_keep(key, i, p, scale) : 1.0f;
  }
};

// Row r of dA [N * Tq, Tk] becomes dS (in place), with A of the same shape:
// dA *= mask (if drop.on()); dS = A * (dA - sum_j dA_j A_j). One warp per row.
__global__ void weights_grad_kernel(float* dA, const float* A, DropView drop, int64_t Tk,
                                    int64_t rows) {
  const int64_t r = warp_row();
  if (r >= rows) return;
  const int lane = threadIdx.x & 31;
  float* d = dA + r * Tk;
  const float* a = A + r * Tk;
  const bool masked = drop.on();
  float dot = 0.0f;
  for (int64_t j = lane; j < Tk; j += 32) {
    const float g = masked ? (a[j] == 0.0f ? 0.0f : d[j] * drop.keep(r * Tk + j)) : d[j];
    d[j] = g;
    dot += g * a[j];
  }
  dot = warp_sum(dot);
  for (int64_t j = lane; j < Tk; j += 32) d[j] = a[j] * (d[j] - dot);
}

// Row r of S [N * Tq, Tk] (scale q k^T) becomes the weights exp(s - lse[r]) in place,
// s masked as in forward; a row whose lse is -inf (no key allowed) becomes zeros. With
// dropout (p > 0) dropped gets the weights times the mask drawn from key.
__global__ void weights_from_lse_kernel(float* S, const float* lse, attention::MaskView m,
                                        float* dropped, DropView drop) {
  const int64_t r = blockIdx.x;
  float* row = S + r * m.Tk;
  const float* add = m.row(r);
  const int64_t end = m.end(r);
  const float z = lse[r];
  for (int64_t j = threadIdx.x; j < m.Tk; j += blockDim.x) {
    const bool allowed = j < end && z != -INFINITY;
    const float a = allowed ? expf((add ? row[j] + add[j] : row[j]) - z) : 0.0f;
    row[j] = a;
    if (dropped) dropped[r * m.Tk + j] = a == 0.0f ? 0.0f : a * drop.keep(r * m.Tk + j);
  }
}

// The backward from the weights A [N, Tq, Tk] and the dropped weights A' (A * mask; A
// itself without dropout); work: scratch of the same size, which may hold A' on entry,
// and holds dA / dS after it.
void backward_from_weights(const float* dy, const float* q, const float* k, const float* v,
                           const float* A, const float* dropped, const DropView& drop, float* dq,
                           float* dk, float* dv, const ops::AttentionShape& s, float scale,
                           float* work) {
  const int64_t N = s.N, Tq = s.Tq, Tk = s.Tk, Dk = s.Dk, Dv = s.Dv, TT = Tq * Tk;
  // dv [Tk, Dv] = A'^T dy  (A' stored [Tq, Tk])
  gemm(dropped, dy, dv, Tk, Dv, Tq, /*trans_a=*/true, false, 1.0f, 0.0f, {N, TT, Tq * Dv, Tk * Dv});
  // dA [Tq, Tk] = dy v^T  (into work: A' is no longer needed)
  gemm(dy, v, work, Tq, Tk, Dv, false, /*trans_b=*/true, 1.0f, 0.0f, {N, Tq * Dv, Tk * Dv, TT});
  if (N * Tq > 0 && Tk > 0) {
    weights_grad_kernel<<<blocks_for(N * Tq, kRowsPerBlock), 32 * kRowsPerBlock>>>(work, A, drop,
                                                                                   Tk, N * Tq);
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
  const int64_t count = s.N * s.Tq * s.Tk;
  float* work = scratch<float>(ScratchSlot::kGradWeights, count);
  if (drop_mask) multiply(att, drop_mask, work, count);  // A' = A * drop_mask
  backward_from_weights(dy, q, k, v, att, drop_mask ? work : att, DropView{drop_mask}, dq, dk, dv,
                        s, scale, work);
}

void attention_backward_tiled(const float* dy, const float* q, const float* k, const float* v,
                              const float* y, const float* lse, float* dq, float* dk, float* dv,
                              const ops::AttentionShape& s, float scale,
                              const ops::AttentionMask& mask, float dropout_p,
                              uint64_t dropout_key) {
  const attention::MaskView m = attention::check(s, mask);
  attention::check_dropout(dropout_p);
  if (s.N == 0) return;
  if (s.Tq > 0 && s.Tk > 0 && flash::fits(s)) {
    flash::backward(dy, q, k, v, y, lse, dq, dk, dv, s, scale, m, dropout_p, dropout_key);
    return;
  }
  const int64_t count = s.N * s.Tq * s.Tk;
  float* A = scratch<float>(ScratchSlot::kWeights, count);
  float* work = scratch<float>(ScratchSlot::kGradWeights, count);
  attention::scores(q, k, A, s, scale);
  const DropView drop{nullptr, dropout_p, dropout_p > 0.0f ? 1.0f / (1.0f - dropout_p) : 1.0f,
                      dropout_key};
  float* dropped = drop.on() ? work : nullptr;  // A' = A * mask, the mask drawn again
  if (s.N * s.Tq > 0 && s.Tk > 0) {
    weights_from_lse_kernel<<<rows_grid(s.N * s.Tq), row_threads(s.Tk)>>>(A, lse, m, dropped, drop);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  backward_from_weights(dy, q, k, v, A, dropped ? dropped : A, drop, dq, dk, dv, s, scale, work);
}

}  // namespace tinylm::cuda
