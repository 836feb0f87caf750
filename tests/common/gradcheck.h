// Finite-difference gradient checking for modules and models (float32 engine).
// The scalar checked is L = sum(y * r) for a fixed random r, accumulated in double; the
// numeric gradient of an entry is the central difference (L(p+eps) - L(p-eps)) / 2eps.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tensor/tensor.h"
#include "util/rng.h"

namespace tinylm::testing {

inline Tensor random_tensor(const Shape& shape, Rng& rng, float scale = 1.0f) {
  Tensor t = Tensor::empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t[i] = scale * rng.normal();
  return t;
}

inline double dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

// Compares the analytic gradient `analytic` of `value` with central differences of
// `loss()` at up to `samples` entries (spread over the tensor). Passes when
// ||numeric - analytic|| <= tol * max(||numeric||, ||analytic||) + 1e-4. The absolute
// floor admits float32 noise on gradients that are zero in exact arithmetic (e.g. the
// key bias: softmax ignores a constant added to every score of a row).
inline void expect_grad_close(const std::string& what, Tensor value, const Tensor& analytic,
                              const std::function<double()>& loss, int samples = 24,
                              float eps = 1e-2f, double tol = 1e-2) {
  ASSERT_EQ(value.numel(), analytic.numel()) << what;
  const int64_t n = value.numel();
  const int64_t step = std::max<int64_t>(1, n / samples);
  double diff2 = 0, num2 = 0, ana2 = 0;
  for (int64_t i = (n > samples ? step / 2 : 0); i < n; i += step) {
    const float saved = value[i];
    value[i] = saved + eps;
    const double up = loss();
    value[i] = saved - eps;
    const double down = loss();
    value[i] = saved;
    const double numeric = (up - down) / (2.0 * eps);
    diff2 += (numeric - analytic[i]) * (numeric - analytic[i]);
    num2 += numeric * numeric;
    ana2 += static_cast<double>(analytic[i]) * analytic[i];
  }
  const double err = std::sqrt(diff2), scale = std::sqrt(std::max(num2, ana2));
  EXPECT_LE(err, tol * scale + 1e-4) << what << ": |numeric - analytic| = " << err
                                     << ", |gradient| = " << scale;
}

}  // namespace tinylm::testing
