// The gated feed-forward of the Llama family (SwiGLU), its element-wise part as Hugging
// Face's LlamaMLP computes it: h = silu(gate) * up, silu(g) = g * sigmoid(g), with
// gate = x W_gate^T and up = x W_up^T (the products are the linear layers'):
//   forward:  gate [n], up [n] -> h [n]
//   backward: dh [n] -> dgate [n] = dh * up * silu'(gate), dup [n] = dh * silu(gate)
//             (overwritten), silu'(g) = s (1 + g (1 - s)), s = sigmoid(g)
#pragma once
#include <cstdint>

namespace tinylm::ops {

void swiglu_forward(const float* gate, const float* up, float* h, int64_t n);
void swiglu_backward(const float* dh, const float* gate, const float* up, float* dgate, float* dup,
                     int64_t n);

namespace ref {
void swiglu_forward(const float* gate, const float* up, float* h, int64_t n);
void swiglu_backward(const float* dh, const float* gate, const float* up, float* dgate, float* dup,
                     int64_t n);
}  // namespace ref

}  // namespace tinylm::ops
