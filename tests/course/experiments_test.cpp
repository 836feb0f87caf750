// The addition chapter's small experiments: the effects they exist to show.
#include "course/experiments.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tinylm::course {
namespace {

TEST(Experiments, ResidualsKeepTheSignalAndTheGradient) {
  for (uint64_t seed : {1u, 123u, 999u}) {
    const ResidualNorms r = residual_norms(6, 64, seed);
    ASSERT_EQ(r.without.size(), 6u);
    // Without residuals the vector fades layer after layer; with them it grows.
    EXPECT_LT(r.without.back(), 0.25 * r.input_norm) << seed;
    EXPECT_LT(r.without.back(), r.without.front()) << seed;
    EXPECT_GT(r.with.back(), r.input_norm) << seed;
    // The gradient reaching the first layer vanishes without them.
    EXPECT_LT(r.grad_without.front(), 0.01 * r.grad_with.front()) << seed;
  }
}

TEST(Experiments, SqrtDkKeepsTheSoftmaxEntropyLevel) {
  const auto rows = sqrt_dk_experiment({4, 64, 1024}, 16, 500, 3);
  for (const auto& r : rows) {
    EXPECT_NEAR(r.score_std, std::sqrt(static_cast<double>(r.d_k)),
                0.06 * std::sqrt(static_cast<double>(r.d_k)));
    EXPECT_LT(r.entropy_scaled, std::log(16.0));
  }
  EXPECT_GT(rows[0].entropy_unscaled, rows[1].entropy_unscaled);
  EXPECT_GT(rows[1].entropy_unscaled, rows[2].entropy_unscaled);
  EXPECT_LT(rows[2].entropy_unscaled, 0.2);  // nearly one-hot
  EXPECT_NEAR(rows[0].entropy_scaled, rows[2].entropy_scaled, 0.1);
}

TEST(Experiments, ActivationCurves) {
  const auto curves = activation_curves(-2, 2, 5);  // x = -2, -1, 0, 1, 2
  ASSERT_EQ(curves.size(), 3u);
  EXPECT_EQ(curves[0].points[0].second, 0.0);  // ReLU(-2)
  EXPECT_EQ(curves[0].points[4].second, 2.0);
  EXPECT_NEAR(curves[1].points[3].second, 0.841345, 1e-5);  // x * Phi(x) at 1
  EXPECT_NEAR(curves[2].points[3].second, 0.841192, 1e-5);  // the tanh approximation
}

TEST(Experiments, LayerNormCentresAndScalesEveryRow) {
  const LayerNormHistogram h = layernorm_histogram(64, 32, 30, 5);
  EXPECT_GT(h.before_std, 2.0);
  EXPECT_NEAR(h.after_mean, 0.0, 1e-5);
  EXPECT_NEAR(h.after_std, 1.0, 1e-3);
  EXPECT_LT(h.worst_row_mean, 1e-5);
  EXPECT_LT(h.worst_row_var_error, 1e-3);
  double share = 0;
  for (const auto& [x, y] : h.after) share += y;
  EXPECT_NEAR(share, 1.0, 1e-9);
}

}  // namespace
}  // namespace tinylm::course
