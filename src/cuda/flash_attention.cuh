// Fused ("flash") attention for the tiled contract of ops/attention.h, on tensor cores
// (*.cu only; used by attention.cu and attention_backward.cu when flash::fits says so).
// The [Tq, Tk] scores, weights and dropout mask live only in shared memory, 64 x 64 at a
// time; nothing of size [N, Tq, Tk] is written. Products are TF32 (wmma m16n16k8, float32
// sums) with the GPU's fast exponential, so they are used only when the matrix precision
// is tf32 or bf16 (fp32, exact mode, keeps the cuBLAS path). Per set n:
//   forward   pass 1 over the key tiles: each row's max and sum -> lse (online);
//             pass 2: P = exp(S - lse) * keep, y += P v        (one block per 64 queries)
//   backward  delta = rowsum(dy * y);
//             dk, dv: one block per 64 keys, over the query tiles that see them:
//               dv += (P keep)^T dy ; dS = P ((dy v^T) keep - delta) ; dk += dS^T q scale
//             dq: one block per 64 queries, over their key tiles: dq += dS k scale
// keep: the dropout mask drawn again from the key (dropout_keep, the rule of every backend).
#pragma once
#include <cstdint>

#include "cuda/attention.cuh"

namespace tinylm::cuda::flash {

// Whether the fused kernels are on: set_flash_attention (cuda/kernels.h), else
// TINYLM_CUDA_FLASH=0 / 1 (to compare them with the cuBLAS path on one GPU), else off:
// they are slower than the cuBLAS path for now (docs/cuda.md).
bool enabled();

// Whether the fused kernels take this call: enabled, tensor-core precision set, head sizes
// Dk and Dv at most 64, a GPU of compute capability 8.0 or newer.
bool fits(const ops::AttentionShape& s);

void forward(const float* q, const float* k, const float* v, float* y, float* lse,
             const ops::AttentionShape& s, float scale, const attention::MaskView& m, float p,
             uint64_t key);

void backward(const float* dy, const float* q, const float* k, const float* v, const float* y,
              const float* lse, float* dq, float* dk, float* dv, const ops::AttentionShape& s,
              float scale, const attention::MaskView& m, float p, uint64_t key);

}  // namespace tinylm::cuda::flash
