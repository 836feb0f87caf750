// AdamW: one step by hand, several steps against the formula in double, weight decay,
// bad step. Fast vs reference: the op table test (tests/backend/op_table_test.cpp).
#include "ops/adamw.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/gradcheck.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::random_vec;

TEST(AdamW, FirstStepByHand) {
  // p = 1, g = 0.5, lr = 0.1, wd = 0.1: p = 0.99 after decay; m = 0.05, v = 0.00025;
  // m / bc1 = 0.5, sqrt(v / bc2) = 0.5, so p = 0.99 - 0.1 * 0.5 / (0.5 + 1e-8).
  const AdamWHyper h{0.1f, 0.9f, 0.999f, 1e-8f, 0.1f};
  for (bool fast : {false, true}) {
    float p = 1.0f, g = 0.5f, m = 0.0f, v = 0.0f;
    (fast ? adamw_update : ref::adamw_update)(&p, &g, &m, &v, 1, h, 1);
    EXPECT_NEAR(p, 0.99 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-7) << fast;
    // (1 - b1) and (1 - b2) come from the float hyperparameters 0.9f and 0.999f
    EXPECT_NEAR(m, (1.0 - double(h.beta1)) * 0.5, 1e-9);
    EXPECT_NEAR(v, (1.0 - double(h.beta2)) * 0.25, 1e-11);
  }
}

TEST(AdamW, SeveralStepsMatchTheFormulaInDouble) {
  Rng rng(60);
  const int64_t N = 257, steps = 6;
  const AdamWHyper h{3e-3f, 0.9f, 0.95f, 1e-8f, 0.1f};
  const auto p0 = random_vec(N, rng);
  std::vector<std::vector<float>> grads;
  for (int t = 0; t < steps; ++t) grads.push_back(random_vec(N, rng, 0.1f));

  // The formula, in double all the way.
  std::vector<double> p(p0.begin(), p0.end()), m(N, 0.0), v(N, 0.0);
  const double lr = h.lr, b1 = h.beta1, b2 = h.beta2, eps = h.eps, wd = h.weight_decay;
  for (int t = 1; t <= steps; ++t)
    for (int64_t i = 0; i < N; ++i) {
      const double g = grads[t - 1][i];
      p[i] *= 1.0 - lr * wd;
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      const double mhat = m[i] / (1 - std::pow(b1, t)), vhat = v[i] / (1 - std::pow(b2, t));
      p[i] -= lr * mhat / (std::sqrt(vhat) + eps);
    }

  for (bool fast : {false, true}) {
    std::vector<float> pf = p0, mf(N, 0.0f), vf(N, 0.0f);
    for (int t = 1; t <= steps; ++t)
      (fast ? adamw_update : ref::adamw_update)(pf.data(), grads[t - 1].data(), mf.data(),
                                                vf.data(), N, h, t);
    for (int64_t i = 0; i < N; ++i) {
      EXPECT_NEAR(pf[i], p[i], 1e-6) << (fast ? "fast " : "ref ") << i;
      EXPECT_NEAR(mf[i], m[i], 1e-8);
      EXPECT_NEAR(vf[i], v[i], 1e-9);
    }
  }
}

TEST(AdamW, WeightDecayAloneShrinksParameters) {
  // g = 0 (so m = v = 0 and the Adam step is 0): p *= 1 - lr * wd exactly.
  const AdamWHyper h{0.5f, 0.9f, 0.999f, 1e-8f, 0.2f};
  for (bool fast : {false, true}) {
    std::vector<float> p = {2.0f, -4.0f}, g = {0, 0}, m = {0, 0}, v = {0, 0};
    (fast ? adamw_update : ref::adamw_update)(p.data(), g.data(), m.data(), v.data(), 2, h, 3);
    EXPECT_FLOAT_EQ(p[0], 1.8f);
    EXPECT_FLOAT_EQ(p[1], -3.6f);
  }
}

TEST(AdamW, StepMustStartAtOne) {
  float p = 1, g = 1, m = 0, v = 0;
  EXPECT_THROW(adamw_update(&p, &g, &m, &v, 1, {}, 0), InputError);
  EXPECT_THROW(ref::adamw_update(&p, &g, &m, &v, 1, {}, 0), InputError);
}

}  // namespace
}  // namespace tinylm::ops
