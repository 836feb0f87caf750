// SwiGLU's element-wise part: silu at known points, finite differences for gate and up,
// and no overflow far into either tail. Fast vs reference: the op table test.
#include "ops/swiglu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/gradcheck.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_grad;
using ops_test::random_vec;
using ops_test::weighted_sum;

TEST(SwiGlu, SiluTimesUp) {
  const std::vector<float> gate = {0.0f, 1.0f, -2.0f, 100.0f, -100.0f}, up = {3, 2, 1, 0.5f, 7};
  std::vector<float> h(5);
  swiglu_forward(gate.data(), up.data(), h.data(), 5);
  for (int i = 0; i < 5; ++i) {
    const double g = gate[i];
    EXPECT_NEAR(h[i], g / (1.0 + std::exp(-g)) * up[i], 1e-6 * (1 + std::fabs(g * up[i]))) << i;
  }
  EXPECT_EQ(h[0], 0.0f);
  EXPECT_TRUE(std::isfinite(h[4]));
}

TEST(SwiGlu, ReferenceBackwardMatchesFiniteDifferences) {
  Rng rng(5);
  const int64_t n = 24;
  auto gate = random_vec(n, rng, 2.0f), up = random_vec(n, rng);
  const auto r = random_vec(n, rng);
  auto loss = [&] {
    std::vector<float> h(n);
    ref::swiglu_forward(gate.data(), up.data(), h.data(), n);
    return weighted_sum(h, r);
  };
  std::vector<float> dgate(n), dup(n);
  ref::swiglu_backward(r.data(), gate.data(), up.data(), dgate.data(), dup.data(), n);
  expect_grad("swiglu dgate", gate, dgate, loss);
  expect_grad("swiglu dup", up, dup, loss);
}

}  // namespace
}  // namespace tinylm::ops
