// Rotary embeddings: Hugging Face's rotate_half on a known head, rotation properties
// (position 0 is the identity, norms are kept, a query-key product depends only on the
// distance), backward as the exact transpose (finite differences), in place, and Llama
// 3's frequency scaling. Fast vs reference: the op table test.
#include "ops/rope.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/gradcheck.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_grad;
using ops_test::random_vec;
using ops_test::weighted_sum;

struct Tables {
  std::vector<float> inv, cos, sin;
  Tables(int64_t D, int64_t n_pos, float theta = 10000.0f,
         const Llama3RopeScaling* scaling = nullptr)
      : inv(D / 2), cos(n_pos * D / 2), sin(n_pos * D / 2) {
    rope_inv_freq(theta, D, scaling, inv.data());
    rope_tables(inv.data(), D / 2, n_pos, cos.data(), sin.data());
  }
};

TEST(Rope, RotatesTheTwoHalvesOfAHead) {
  const int64_t D = 4;
  const Tables t(D, 3);
  EXPECT_FLOAT_EQ(t.inv[0], 1.0f);
  EXPECT_FLOAT_EQ(t.inv[1], 0.01f);  // 10000^(-2/4)
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> y(4);
  rope_forward(x.data(), t.cos.data(), t.sin.data(), y.data(), 1, 1, D, 2);  // position 2
  const double a0 = 2.0, a1 = 0.02;  // the angles of the pairs (x0, x2) and (x1, x3)
  EXPECT_NEAR(y[0], 1 * std::cos(a0) - 3 * std::sin(a0), 1e-6);
  EXPECT_NEAR(y[2], 3 * std::cos(a0) + 1 * std::sin(a0), 1e-6);
  EXPECT_NEAR(y[1], 2 * std::cos(a1) - 4 * std::sin(a1), 1e-6);
  EXPECT_NEAR(y[3], 4 * std::cos(a1) + 2 * std::sin(a1), 1e-6);
}

TEST(Rope, IdentityAtZeroNormKeptAndOnlyTheDistanceCounts) {
  const int64_t D = 64, T = 40;
  const Tables t(D, T);
  Rng rng(3);
  const auto q = random_vec(D, rng), k = random_vec(D, rng);
  std::vector<float> q0(D);
  rope_forward(q.data(), t.cos.data(), t.sin.data(), q0.data(), 1, 1, D, 0);
  EXPECT_EQ(q0, q);
  // q at p, k at p - 5, for several p: the same product.
  const auto dot_at = [&](int64_t p) {
    std::vector<float> qr(D), kr(D);
    rope_forward(q.data(), t.cos.data(), t.sin.data(), qr.data(), 1, 1, D, p);
    rope_forward(k.data(), t.cos.data(), t.sin.data(), kr.data(), 1, 1, D, p - 5);
    double dot = 0, norm_q = 0, norm_qr = 0;
    for (int64_t i = 0; i < D; ++i) {
      dot += static_cast<double>(qr[i]) * kr[i];
      norm_q += static_cast<double>(q[i]) * q[i];
      norm_qr += static_cast<double>(qr[i]) * qr[i];
    }
    EXPECT_NEAR(norm_qr, norm_q, 1e-4 * norm_q);
    return dot;
  };
  const double at5 = dot_at(5);
  for (int64_t p : {12, 27, 39}) EXPECT_NEAR(dot_at(p), at5, 1e-4 * std::fabs(at5) + 1e-4);
}

TEST(Rope, BackwardIsTheTransposeAndRunsInPlace) {
  const int64_t S = 3, T = 5, D = 8, pos0 = 2;
  const Tables t(D, pos0 + T);
  Rng rng(4);
  auto x = random_vec(S * T * D, rng);
  const auto r = random_vec(S * T * D, rng);
  auto loss = [&] {
    std::vector<float> y(x.size());
    ref::rope_forward(x.data(), t.cos.data(), t.sin.data(), y.data(), S, T, D, pos0);
    return weighted_sum(y, r);
  };
  std::vector<float> dx(x.size());
  ref::rope_backward(r.data(), t.cos.data(), t.sin.data(), dx.data(), S, T, D, pos0);
  expect_grad("rope dx", x, dx, loss);
  std::vector<float> y(x.size()), in_place = x;
  rope_forward(x.data(), t.cos.data(), t.sin.data(), y.data(), S, T, D, pos0);
  rope_forward(in_place.data(), t.cos.data(), t.sin.data(), in_place.data(), S, T, D, pos0);
  EXPECT_EQ(in_place, y);
  rope_backward(in_place.data(), t.cos.data(), t.sin.data(), in_place.data(), S, T, D, pos0);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(in_place[i], x[i], 1e-5);
}

// Llama 3.2's rope_scaling (factor 32, low 1, high 4, original context 8192): wavelengths
// shorter than 8192 / 4 keep their frequency, longer than 8192 / 1 are divided by 32, and
// the band between is a blend of the two.
TEST(Rope, Llama3ScalingSlowsOnlyTheLongWavelengths) {
  const int64_t D = 64;
  const Llama3RopeScaling scaling{32.0f, 1.0f, 4.0f, 8192};
  const Tables plain(D, 1, 500000.0f), scaled(D, 1, 500000.0f, &scaling);
  int kept = 0, divided = 0, blended = 0;
  for (int64_t i = 0; i < D / 2; ++i) {
    const float f = plain.inv[i], g = scaled.inv[i];
    const double wavelen = 2 * M_PI / f;
    if (wavelen < 8192.0 / 4) {
      EXPECT_EQ(g, f) << i;
      ++kept;
    } else if (wavelen > 8192.0) {
      EXPECT_FLOAT_EQ(g, f / 32) << i;
      ++divided;
    } else {
      EXPECT_GT(g, f / 32) << i;
      EXPECT_LT(g, f) << i;
      ++blended;
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(divided, 0);
  EXPECT_GT(blended, 0);
}

}  // namespace
}  // namespace tinylm::ops
