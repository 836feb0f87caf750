// Root-mean-square normalisation over the last dimension, as Hugging Face's LlamaRMSNorm
// (Llama, SmolLM2, Qwen; Qwen3's per-head q and k norms too), computed in float32:
//   x [N, C] -> y [N, C] = x * rstd * w, rstd = 1/sqrt(mean(x^2) + eps). w [C]; no bias,
//   no mean subtracted. forward also writes rstd [N] for backward.
//   backward: dx [N, C] (overwritten), dw [C] += ... (skipped if null: a frozen weight).
// With xhat = x * rstd and g = dy * w, the row gradient is
//   dx = rstd * (g - xhat * mean(g * xhat)),  dw += sum over rows of dy * xhat.
#pragma once
#include <cstdint>

namespace tinylm::ops {

void rmsnorm_forward(const float* x, const float* w, float* y, float* rstd, int64_t N, int64_t C,
                     float eps);
void rmsnorm_backward(const float* dy, const float* x, const float* w, const float* rstd, float* dx,
                      float* dw, int64_t N, int64_t C);

namespace ref {
void rmsnorm_forward(const float* x, const float* w, float* y, float* rstd, int64_t N, int64_t C,
                     float eps);
void rmsnorm_backward(const float* dy, const float* x, const float* w, const float* rstd, float* dx,
                      float* dw, int64_t N, int64_t C);
}  // namespace ref

}  // namespace tinylm::ops
