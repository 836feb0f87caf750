// Element-wise activations, fast version: x [N] -> y [N]; backward dy, x [N] -> dx [N].
//   GeluTanh: y = 0.5 x (1 + t),  t = tanh(u),  u = k (x + 0.044715 x^3),  k = sqrt(2/pi)
//             y' = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 * 0.044715 x^2)
//             Computed through s = 0.5 (1 + t) = sigmoid(2u) and 1 - t^2 = 4 s (1 - s),
//             the same function without float cancellation in 1 + t when t is near -1.
//   GeluErf:  y = 0.5 x (1 + erf(x / sqrt 2)),  y' = 0.5 (1 + erf(x / sqrt 2)) + x phi(x)
//             with phi the standard normal density
//   Relu:     y = max(x, 0),  y' = [x > 0]
// Also the name <-> enum mapping. Parallel over elements for large N.
#include "ops/activation.h"

#include <cmath>

#include "ops/exp_simd.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCoef = 0.044715f;
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;  // 1 / sqrt(2 pi)

// s = 0.5 (1 + tanh(u)) = sigmoid(2u) and 1 - s, both to full relative precision.
inline void half_one_plus_tanh(float u, float& s, float& one_minus_s) {
  const float e = exp_simd(-2.0f * std::fabs(u));  // in (0, 1]: never overflows
  // e / (1 + e) is the smaller of the two, 1 / (1 + e) the larger. Selecting the
  // numerators (not the quotients) leaves no branch, so `omp simd` loops vectorise.
  const bool positive = u >= 0.0f;
  s = (positive ? 1.0f : e) / (1.0f + e);
  one_minus_s = (positive ? e : 1.0f) / (1.0f + e);
}

inline float gelu_tanh(float v) {
  float s, one_minus_s;
  half_one_plus_tanh(kSqrt2OverPi * (v + kGeluCoef * v * v * v), s, one_minus_s);
  return v * s;
}

inline float gelu_erf(float v) {
  return 0.5f * v * (1.0f + std::erf(v * kInvSqrt2));
}

}  // namespace

Activation parse_activation(const std::string& name) {
  if (name == "gelu" || name == "gelu_tanh" || name == "gelu_new") return Activation::GeluTanh;
  if (name == "gelu_erf" || name == "gelu_exact") return Activation::GeluErf;
  if (name == "relu") return Activation::Relu;
  throw InputError("unknown activation \"" + name +
                   "\" (expected gelu, gelu_tanh, gelu_new, gelu_erf, gelu_exact or relu)");
}

std::string activation_name(Activation a) {
  switch (a) {
    case Activation::GeluTanh:
      return "gelu_tanh";
    case Activation::GeluErf:
      return "gelu_erf";
    case Activation::Relu:
      return "relu";
  }
  return "unknown";
}

void activation_forward(Activation a, const float* x, float* y, int64_t N) {
  // Each case's loop twice, over the threads or (a decoding row) in this thread alone:
  // an OpenMP region with a false `if` still costs a team of one (ops/parallel_for.h).
  const bool parallel = N >= kMinParallel;
  switch (a) {
    case Activation::GeluTanh:
      if (parallel) {
#pragma omp parallel for simd schedule(static)
        for (int64_t i = 0; i < N; ++i) y[i] = gelu_tanh(x[i]);
      } else {
#pragma omp simd
        for (int64_t i = 0; i < N; ++i) y[i] = gelu_tanh(x[i]);
      }
      break;
    case Activation::GeluErf:
      if (parallel) {
#pragma omp parallel for simd schedule(static)
        for (int64_t i = 0; i < N; ++i) y[i] = gelu_erf(x[i]);
      } else {
#pragma omp simd
        for (int64_t i = 0; i < N; ++i) y[i] = gelu_erf(x[i]);
      }
      break;
    case Activation::Relu:
      if (parallel) {
#pragma omp parallel for simd schedule(static)
        for (int64_t i = 0; i < N; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      } else {
#pragma omp simd
        for (int64_t i = 0; i < N; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
      }
      break;
  }
}

void activation_backward(Activation a, const float* dy, const float* x, float* dx, int64_t N) {
  switch (a) {
    case Activation::GeluTanh:
#pragma omp parallel for simd schedule(static) if (N >= kMinParallel)
      for (int64_t i = 0; i < N; ++i) {
        const float v = x[i];
        float s, one_minus_s;
        half_one_plus_tanh(kSqrt2OverPi * (v + kGeluCoef * v * v * v), s, one_minus_s);
        const float dinner = kSqrt2OverPi * (1.0f + 3.0f * kGeluCoef * v * v);
        dx[i] = dy[i] * (s + 2.0f * v * s * one_minus_s * dinner);
      }
      break;
    case Activation::GeluErf:
#pragma omp parallel for simd schedule(static) if (N >= kMinParallel)
      for (int64_t i = 0; i < N; ++i) {
        const float v = x[i];
        const float cdf = 0.5f * (1.0f + std::erf(v * kInvSqrt2));
        const float pdf = kInvSqrt2Pi * std::exp(-0.5f * v * v);
        dx[i] = dy[i] * (cdf + v * pdf);
      }
      break;
    case Activation::Relu:
#pragma omp parallel for simd schedule(static) if (N >= kMinParallel)
      for (int64_t i = 0; i < N; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
      break;
  }
}

}  // namespace tinylm::ops
