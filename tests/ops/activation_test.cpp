// Activations: names, known values, finite differences. Fast vs reference: the op table
// test (tests/backend/op_table_test.cpp).
#include "ops/activation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/gradcheck.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_grad;
using ops_test::random_vec;
using ops_test::weighted_sum;

constexpr Activation kAll[] = {Activation::GeluTanh, Activation::GeluErf, Activation::Relu};

TEST(Activation, ParseAndName) {
  EXPECT_EQ(parse_activation("gelu"), Activation::GeluTanh);
  EXPECT_EQ(parse_activation("gelu_tanh"), Activation::GeluTanh);
  EXPECT_EQ(parse_activation("gelu_new"), Activation::GeluTanh);
  EXPECT_EQ(parse_activation("gelu_erf"), Activation::GeluErf);
  EXPECT_EQ(parse_activation("gelu_exact"), Activation::GeluErf);
  EXPECT_EQ(parse_activation("relu"), Activation::Relu);
  for (Activation a : kAll) EXPECT_EQ(parse_activation(activation_name(a)), a);
  try {
    parse_activation("swish");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("swish"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_activation("GELU"), InputError);
  EXPECT_THROW(parse_activation(""), InputError);
}

TEST(Activation, KnownValues) {
  // GPT-2 tanh GELU and exact GELU at a few points, computed independently in double.
  const std::vector<float> x = {-3.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 3.0f};
  std::vector<float> y(x.size()), yr(x.size());
  for (Activation a : kAll) {
    activation_forward(a, x.data(), y.data(), x.size());
    ref::activation_forward(a, x.data(), yr.data(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = x[i];
      double expected = 0.0;
      if (a == Activation::GeluTanh)
        expected = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
      else if (a == Activation::GeluErf)
        expected = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      else
        expected = v > 0 ? v : 0;
      EXPECT_NEAR(y[i], expected, 1e-6) << activation_name(a) << " at " << v;
      EXPECT_NEAR(yr[i], expected, 1e-7) << activation_name(a) << " at " << v;
    }
  }
  // Published values: gelu_new(1) = 0.841192, gelu(1) = 0.841345.
  ref::activation_forward(Activation::GeluTanh, &x[5], &y[0], 1);
  EXPECT_NEAR(y[0], 0.8411920, 1e-6);
  ref::activation_forward(Activation::GeluErf, &x[5], &y[0], 1);
  EXPECT_NEAR(y[0], 0.8413447, 1e-6);
}

TEST(Activation, ReferenceBackwardMatchesFiniteDifferences) {
  Rng rng(31);
  const int64_t N = 64;
  auto x = random_vec(N, rng, 2.0f);
  for (float& v : x)  // keep ReLU's kink away from the finite-difference step
    if (std::fabs(v) < 0.05f) v = 0.5f;
  const auto r = random_vec(N, rng);
  for (Activation a : kAll) {
    auto loss = [&] {
      std::vector<float> y(N);
      ref::activation_forward(a, x.data(), y.data(), N);
      return weighted_sum(y, r);
    };
    std::vector<float> dx(N);
    ref::activation_backward(a, r.data(), x.data(), dx.data(), N);
    expect_grad(activation_name(a), x, dx, loss, 64, 1e-2f, 2e-3);
  }
}

}  // namespace
}  // namespace tinylm::ops
