// LayerNorm: a hand-checked row, finite differences for x, w and b, and run-to-run /
// thread-count determinism. Fast vs reference (with and without bias, null dw / db): the
// op table test (tests/backend/op_table_test.cpp).
#include "ops/layernorm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/gradcheck.h"
#include "tensor/threads.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_grad;
using ops_test::expect_same_bits_across_thread_counts;
using ops_test::random_vec;
using ops_test::weighted_sum;

TEST(LayerNorm, KnownRow) {
  // x = [1, 2, 3, 4]: mean 2.5, biased var 1.25; w = 1, b = 0.
  const std::vector<float> x = {1, 2, 3, 4}, w = {1, 1, 1, 1}, b = {0, 0, 0, 0};
  const float eps = 1e-5f;
  std::vector<float> y(4), mean(1), rstd(1);
  layernorm_forward(x.data(), w.data(), b.data(), y.data(), mean.data(), rstd.data(), 1, 4, eps);
  const double rs = 1.0 / std::sqrt(1.25 + 1e-5);
  EXPECT_NEAR(mean[0], 2.5, 1e-7);
  EXPECT_NEAR(rstd[0], rs, 1e-6);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(y[c], (x[c] - 2.5) * rs, 1e-6);
}

TEST(LayerNorm, ReferenceBackwardMatchesFiniteDifferences) {
  Rng rng(22);
  const int64_t N = 5, C = 8;
  auto x = random_vec(N * C, rng), w = random_vec(C, rng), b = random_vec(C, rng);
  const auto r = random_vec(N * C, rng);
  auto loss = [&] {
    std::vector<float> y(N * C), m(N), rs(N);
    ref::layernorm_forward(x.data(), w.data(), b.data(), y.data(), m.data(), rs.data(), N, C,
                           1e-5f);
    return weighted_sum(y, r);
  };
  std::vector<float> y(N * C), m(N), rs(N), dx(N * C), dw(C, 0.0f), db(C, 0.0f);
  ref::layernorm_forward(x.data(), w.data(), b.data(), y.data(), m.data(), rs.data(), N, C, 1e-5f);
  ref::layernorm_backward(r.data(), x.data(), w.data(), m.data(), rs.data(), dx.data(), dw.data(),
                          db.data(), N, C);
  expect_grad("layernorm dx", x, dx, loss, 40, 1e-2f, 5e-3);
  expect_grad("layernorm dw", w, dw, loss);
  expect_grad("layernorm db", b, db, loss);
}

TEST(LayerNorm, BackwardIsDeterministicAcrossThreadCounts) {
  Rng rng(23);
  const int64_t N = 512, C = 200;
  const auto x = random_vec(N * C, rng), w = random_vec(C, rng), dy = random_vec(N * C, rng);
  std::vector<float> y(N * C), m(N), rs(N);
  layernorm_forward(x.data(), w.data(), nullptr, y.data(), m.data(), rs.data(), N, C, 1e-5f);
  expect_same_bits_across_thread_counts([&] {
    std::vector<float> dx(N * C), dw(C, 0.0f), db(C, 0.0f);
    layernorm_backward(dy.data(), x.data(), w.data(), m.data(), rs.data(), dx.data(), dw.data(),
                       db.data(), N, C);
    dx.insert(dx.end(), dw.begin(), dw.end());
    dx.insert(dx.end(), db.begin(), db.end());
    return dx;
  });
}

}  // namespace
}  // namespace tinylm::ops
