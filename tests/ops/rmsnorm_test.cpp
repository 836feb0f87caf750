// RMSNorm (Llama's, Hugging Face's LlamaRMSNorm): a hand-checked row, finite differences
// for x and w, and thread-count determinism. Fast vs reference (null dw too): the op table
// test (tests/backend/op_table_test.cpp).
#include "ops/rmsnorm.h"

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

TEST(RmsNorm, KnownRow) {
  // x = [1, 2, 3, 4]: mean(x^2) = 7.5, nothing subtracted; w scales each column.
  const std::vector<float> x = {1, 2, 3, 4}, w = {1, 0.5f, 2, -1};
  std::vector<float> y(4), rstd(1);
  rmsnorm_forward(x.data(), w.data(), y.data(), rstd.data(), 1, 4, 1e-6f);
  const double rs = 1.0 / std::sqrt(7.5 + 1e-6);
  EXPECT_NEAR(rstd[0], rs, 1e-7);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(y[c], x[c] * rs * w[c], 1e-6);
}

TEST(RmsNorm, ReferenceBackwardMatchesFiniteDifferences) {
  Rng rng(24);
  const int64_t N = 5, C = 8;
  auto x = random_vec(N * C, rng), w = random_vec(C, rng);
  const auto r = random_vec(N * C, rng);
  auto loss = [&] {
    std::vector<float> y(N * C), rs(N);
    ref::rmsnorm_forward(x.data(), w.data(), y.data(), rs.data(), N, C, 1e-6f);
    return weighted_sum(y, r);
  };
  std::vector<float> y(N * C), rs(N), dx(N * C), dw(C, 0.0f);
  ref::rmsnorm_forward(x.data(), w.data(), y.data(), rs.data(), N, C, 1e-6f);
  ref::rmsnorm_backward(r.data(), x.data(), w.data(), rs.data(), dx.data(), dw.data(), N, C);
  expect_grad("rmsnorm dx", x, dx, loss, 40, 1e-2f, 5e-3);
  expect_grad("rmsnorm dw", w, dw, loss);
}

TEST(RmsNorm, BackwardIsDeterministicAcrossThreadCounts) {
  Rng rng(25);
  const int64_t N = 512, C = 200;
  const auto x = random_vec(N * C, rng), w = random_vec(C, rng), dy = random_vec(N * C, rng);
  std::vector<float> y(N * C), rs(N);
  rmsnorm_forward(x.data(), w.data(), y.data(), rs.data(), N, C, 1e-6f);
  expect_same_bits_across_thread_counts([&] {
    std::vector<float> dx(N * C), dw(C, 0.0f);
    rmsnorm_backward(dy.data(), x.data(), w.data(), rs.data(), dx.data(), dw.data(), N, C);
    dx.insert(dx.end(), dw.begin(), dw.end());
    return dx;
  });
}

}  // namespace
}  // namespace tinylm::ops
