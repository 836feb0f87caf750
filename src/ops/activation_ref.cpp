// Element-wise activations, reference version (computed in double):
//   x [N] -> y [N]; backward dy, x [N] -> dx [N] = dy * f'(x).
#include <cmath>

#include "ops/activation.h"

namespace tinylm::ops::ref {
namespace {

const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);
constexpr double kGeluCoef = 0.044715;

double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + kGeluCoef * x * x * x)));
}
double gelu_tanh_grad(double x) {
  const double t = std::tanh(kSqrt2OverPi * (x + kGeluCoef * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kSqrt2OverPi * (1.0 + 3.0 * kGeluCoef * x * x);
}
double gelu_erf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
double gelu_erf_grad(double x) {
  const double cdf = 0.5 * (1.0 + std::erf(x / std::sqrt(2.0)));
  const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
  return cdf + x * pdf;
}

}  // namespace

void activation_forward(Activation a, const float* x, float* y, int64_t N) {
  for (int64_t i = 0; i < N; ++i) {
    double v = 0.0;
    switch (a) {
      case Activation::GeluTanh:
        v = gelu_tanh(x[i]);
        break;
      case Activation::GeluErf:
        v = gelu_erf(x[i]);
        break;
      case Activation::Relu:
        v = x[i] > 0.0f ? x[i] : 0.0;
        break;
    }
    y[i] = static_cast<float>(v);
  }
}

void activation_backward(Activation a, const float* dy, const float* x, float* dx, int64_t N) {
  for (int64_t i = 0; i < N; ++i) {
    double d = 0.0;
    switch (a) {
      case Activation::GeluTanh:
        d = gelu_tanh_grad(x[i]);
        break;
      case Activation::GeluErf:
        d = gelu_erf_grad(x[i]);
        break;
      case Activation::Relu:
        d = x[i] > 0.0f ? 1.0 : 0.0;
        break;
    }
    dx[i] = static_cast<float>(dy[i] * d);
  }
}

}  // namespace tinylm::ops::ref
