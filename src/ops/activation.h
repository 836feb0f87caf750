// Element-wise activations, x [N] -> y [N]; backward dx [N] = dy * f'(x) (overwritten).
//   GeluTanh: GPT-2's approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//   GeluErf:  exact 0.5 x (1 + erf(x / sqrt(2)))
//   Relu:     max(x, 0)
#pragma once
#include <cstdint>
#include <string>

namespace tinylm::ops {

enum class Activation { GeluTanh, GeluErf, Relu };

// "gelu" / "gelu_tanh" / "gelu_new" -> GeluTanh, "gelu_erf" / "gelu_exact" -> GeluErf,
// "relu" -> Relu; anything else throws InputError naming the value.
Activation parse_activation(const std::string& name);
std::string activation_name(Activation a);

void activation_forward(Activation a, const float* x, float* y, int64_t N);
void activation_backward(Activation a, const float* dy, const float* x, float* dx, int64_t N);

namespace ref {
void activation_forward(Activation a, const float* x, float* y, int64_t N);
void activation_backward(Activation a, const float* dy, const float* x, float* dx, int64_t N);
}  // namespace ref

}  // namespace tinylm::ops
