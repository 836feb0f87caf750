// Cross-entropy: known values, ignore_index, uniform logits, the loss with and without
// dlogits, stability with large logits, finite differences, bad targets, determinism.
// Fast vs reference (loss and dlogits, ignored rows, GPT-2's vocabulary): the op table
// test (tests/backend/op_table_test.cpp).
#include "ops/cross_entropy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/gradcheck.h"
#include "tensor/threads.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::bit_equal;
using ops_test::expect_grad;
using ops_test::random_vec;

std::vector<int32_t> random_targets(int64_t N, int64_t V, Rng& rng, bool with_ignored) {
  std::vector<int32_t> t(N);
  for (auto& x : t) x = static_cast<int32_t>(rng.below(V));
  if (with_ignored)
    for (int64_t i = 0; i < N; i += 3) t[i] = kIgnoreIndex;
  return t;
}

TEST(CrossEntropy, KnownValue) {
  // one row [1, 2, 3], target 0: loss = log(e + e^2 + e^3) - 1
  const std::vector<float> x = {1, 2, 3};
  const std::vector<int32_t> t = {0};
  const double expected = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 1.0;
  std::vector<float> d(3), dr(3);
  EXPECT_NEAR(cross_entropy(x.data(), t.data(), d.data(), 1, 3), expected, 1e-6);
  EXPECT_NEAR(ref::cross_entropy(x.data(), t.data(), dr.data(), 1, 3), expected, 1e-12);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  for (int j = 0; j < 3; ++j) {
    const double g = std::exp(j + 1.0) / z - (j == 0 ? 1.0 : 0.0);
    EXPECT_NEAR(d[j], g, 1e-6);
    EXPECT_NEAR(dr[j], g, 1e-7);
  }
}

TEST(CrossEntropy, UniformLogitsGiveLogV) {
  for (int64_t V : {1, 2, 7, 65, 50257}) {
    const int64_t N = 3;
    const std::vector<float> x(N * V, 0.25f);
    const std::vector<int32_t> t = {0, static_cast<int32_t>(V - 1), static_cast<int32_t>(V / 2)};
    EXPECT_NEAR(cross_entropy(x.data(), t.data(), nullptr, N, V), std::log(V), 1e-5) << V;
    EXPECT_NEAR(ref::cross_entropy(x.data(), t.data(), nullptr, N, V), std::log(V), 1e-12) << V;
  }
}

TEST(CrossEntropy, TheLossIsTheSameWithoutTheGradient) {
  Rng rng(50);
  for (int64_t N : {1, 7, 33, 256})
    for (int64_t V : {1, 7, 65, 1000}) {
      for (bool ignored : {false, true}) {
        const auto x = random_vec(N * V, rng, 3.0f);
        const auto t = random_targets(N, V, rng, ignored);
        std::vector<float> d(N * V);
        const double loss = cross_entropy(x.data(), t.data(), d.data(), N, V);
        EXPECT_EQ(cross_entropy(x.data(), t.data(), nullptr, N, V), loss) << N << " " << V;
      }
    }
}

TEST(CrossEntropy, IgnoredRowsContributeNothing) {
  Rng rng(51);
  const int64_t N = 6, V = 11;
  const auto x = random_vec(N * V, rng, 2.0f);
  const std::vector<int32_t> t = {3, kIgnoreIndex, 0, kIgnoreIndex, 10, 5};
  // mean over the 4 kept rows, each computed on its own
  double expected = 0.0;
  for (int64_t i : {0, 2, 4, 5}) {
    const int32_t one = t[i];
    expected += ref::cross_entropy(x.data() + i * V, &one, nullptr, 1, V) / 4.0;
  }
  std::vector<float> d(N * V), dr(N * V);
  EXPECT_NEAR(cross_entropy(x.data(), t.data(), d.data(), N, V), expected, 1e-6);
  EXPECT_NEAR(ref::cross_entropy(x.data(), t.data(), dr.data(), N, V), expected, 1e-12);
  for (int64_t i : {1, 3})
    for (int64_t j = 0; j < V; ++j) {
      EXPECT_EQ(d[i * V + j], 0.0f);
      EXPECT_EQ(dr[i * V + j], 0.0f);
    }
  // changing an ignored row's logits changes nothing
  auto x2 = x;
  for (int64_t j = 0; j < V; ++j) x2[1 * V + j] = 100.0f * j;
  EXPECT_NEAR(cross_entropy(x2.data(), t.data(), nullptr, N, V), expected, 1e-6);
  // a custom ignore_index works the same way
  std::vector<int32_t> t3 = t;
  for (auto& v : t3)
    if (v == kIgnoreIndex) v = -1;
  EXPECT_NEAR(cross_entropy(x.data(), t3.data(), nullptr, N, V, -1), expected, 1e-6);
}

TEST(CrossEntropy, EverythingIgnoredGivesZero) {
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<int32_t> t = {kIgnoreIndex, kIgnoreIndex};
  std::vector<float> d(4, 5.0f), dr(4, 5.0f);
  EXPECT_EQ(cross_entropy(x.data(), t.data(), d.data(), 2, 2), 0.0);
  EXPECT_EQ(ref::cross_entropy(x.data(), t.data(), dr.data(), 2, 2), 0.0);
  EXPECT_EQ(d, std::vector<float>(4, 0.0f));
  EXPECT_EQ(dr, d);
}

TEST(CrossEntropy, LargeLogitsAreStable) {
  const std::vector<float> x = {1000.0f, 0.0f, -1000.0f};
  const std::vector<int32_t> t = {1};
  std::vector<float> d(3);
  EXPECT_NEAR(cross_entropy(x.data(), t.data(), d.data(), 1, 3), 1000.0, 1e-3);
  EXPECT_NEAR(ref::cross_entropy(x.data(), t.data(), nullptr, 1, 3), 1000.0, 1e-9);
  EXPECT_NEAR(d[0], 1.0f, 1e-6);
  EXPECT_NEAR(d[1], -1.0f, 1e-6);
  EXPECT_EQ(d[2], 0.0f);
}

TEST(CrossEntropy, ReferenceGradientMatchesFiniteDifferences) {
  Rng rng(52);
  const int64_t N = 5, V = 9;
  auto x = random_vec(N * V, rng);
  const std::vector<int32_t> t = {1, kIgnoreIndex, 8, 0, 4};
  auto loss = [&] { return ref::cross_entropy(x.data(), t.data(), nullptr, N, V); };
  std::vector<float> d(N * V);
  ref::cross_entropy(x.data(), t.data(), d.data(), N, V);
  expect_grad("cross_entropy dlogits", x, d, loss, 45, 1e-2f, 2e-3);
}

TEST(CrossEntropy, BadTargetThrowsNamingIt) {
  const std::vector<float> x(6, 0.0f);
  for (int32_t bad : {3, -1, -101}) {
    const std::vector<int32_t> t = {0, bad};
    try {
      cross_entropy(x.data(), t.data(), nullptr, 2, 3);
      FAIL() << "expected InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
    }
    EXPECT_THROW(ref::cross_entropy(x.data(), t.data(), nullptr, 2, 3), InputError);
  }
}

TEST(CrossEntropy, DeterministicAcrossThreadCounts) {
  Rng rng(53);
  const int64_t N = 512, V = 300;
  const auto x = random_vec(N * V, rng, 2.0f);
  const auto t = random_targets(N, V, rng, true);
  auto run = [&](int threads, double* loss) {
    set_num_threads(threads);
    std::vector<float> d(N * V);
    *loss = cross_entropy(x.data(), t.data(), d.data(), N, V);
    return d;
  };
  double la, lb, lc;
  const auto a = run(2, &la), b = run(2, &lb), c = run(1, &lc);
  set_num_threads(0);
  EXPECT_EQ(la, lb);
  EXPECT_EQ(la, lc);
  EXPECT_TRUE(bit_equal(a, b));
  EXPECT_TRUE(bit_equal(a, c));
}

}  // namespace
}  // namespace tinylm::ops
