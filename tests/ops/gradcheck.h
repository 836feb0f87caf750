// Helpers for the op tests: random inputs, fast-vs-ref comparison, and central finite
// differences of a scalar L = sum(y * r) (r a fixed random weight), accumulated in double.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tensor/threads.h"
#include "util/rng.h"

namespace tinylm::ops_test {

inline std::vector<float> random_vec(int64_t n, Rng& rng, float scale = 1.0f) {
  std::vector<float> v(n);
  for (auto& x : v) x = scale * rng.normal();
  return v;
}

// sum_i y[i] * r[i] in double.
inline double weighted_sum(const std::vector<float>& y, const std::vector<float>& r) {
  double s = 0.0;
  for (size_t i = 0; i < y.size(); ++i) s += static_cast<double>(y[i]) * r[i];
  return s;
}

// Every |a - b| <= abs_tol + rel_tol * |b|; reports the first offenders.
inline void expect_close(const std::string& what, const std::vector<float>& a,
                         const std::vector<float>& b, double rel_tol = 1e-5,
                         double abs_tol = 1e-6) {
  ASSERT_EQ(a.size(), b.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(a[i]) - b[i]);
    const bool ok = diff <= abs_tol + rel_tol * std::fabs(static_cast<double>(b[i]));
    if (!ok && reported++ < 5) {
      ADD_FAILURE() << what << "[" << i << "]: " << a[i] << " vs " << b[i] << " (diff " << diff
                    << ")";
    }
  }
}

inline bool bit_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
           return std::memcmp(&x, &y, sizeof(float)) == 0;
         });
}

// run() with two threads, again with two, then with one: the same bits every time (a
// kernel's sums do not depend on the thread count or on scheduling).
template <class Run>
void expect_same_bits_across_thread_counts(const Run& run) {
  set_num_threads(2);
  const std::vector<float> a = run(), b = run();
  set_num_threads(1);
  const std::vector<float> c = run();
  set_num_threads(0);
  EXPECT_TRUE(bit_equal(a, b)) << "two runs with two threads";
  EXPECT_TRUE(bit_equal(a, c)) << "two threads and one";
}

// Checks analytic = dL/dx for the input x against central differences of loss() at up
// to `samples` entries of x (loss() must read x). The step actually taken is measured
// in float, so rounding of x + eps does not bias the quotient. Passes when
// ||numeric - analytic|| <= tol * max(||numeric||, ||analytic||) + 1e-6 over the samples.
inline void expect_grad(const std::string& what, std::vector<float>& x,
                        const std::vector<float>& analytic, const std::function<double()>& loss,
                        int samples = 40, float eps = 1e-2f, double tol = 2e-3) {
  ASSERT_EQ(x.size(), analytic.size()) << what;
  const int64_t n = static_cast<int64_t>(x.size());
  const int64_t step = std::max<int64_t>(1, n / samples);
  double diff2 = 0.0, num2 = 0.0, ana2 = 0.0;
  for (int64_t i = (n > samples ? step / 2 : 0); i < n; i += step) {
    const float saved = x[i];
    const float up_x = saved + eps, down_x = saved - eps;
    x[i] = up_x;
    const double up = loss();
    x[i] = down_x;
    const double down = loss();
    x[i] = saved;
    const double numeric = (up - down) / (static_cast<double>(up_x) - down_x);
    diff2 += (numeric - analytic[i]) * (numeric - analytic[i]);
    num2 += numeric * numeric;
    ana2 += static_cast<double>(analytic[i]) * analytic[i];
  }
  const double err = std::sqrt(diff2), scale = std::sqrt(std::max(num2, ana2));
  EXPECT_LE(err, tol * scale + 1e-6)
      << what << ": |numeric - analytic| = " << err << ", |gradient| = " << scale;
}

}  // namespace tinylm::ops_test
