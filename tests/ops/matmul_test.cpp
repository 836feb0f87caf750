// matmul and linear: known products, beta = 0 and K = 0, products inside a parallel
// region, linear forward by hand, and the reference backward against finite differences.
// Fast vs reference on odd shapes, all transposes and alpha/beta: the op table test
// (tests/backend/op_table_test.cpp).
#include "ops/matmul.h"

#include <gtest/gtest.h>

#include <tuple>

#include "ops/gradcheck.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_close;
using ops_test::expect_grad;
using ops_test::random_vec;
using ops_test::weighted_sum;

TEST(Matmul, SmallKnownProduct) {
  // [[1, 2], [3, 4]] @ [[5, 6], [7, 8]] = [[19, 22], [43, 50]]
  const std::vector<float> A = {1, 2, 3, 4}, B = {5, 6, 7, 8};
  std::vector<float> C(4), Cr(4);
  matmul(A.data(), B.data(), C.data(), 2, 2, 2);
  ref::matmul(A.data(), B.data(), Cr.data(), 2, 2, 2);
  EXPECT_EQ(C, (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(Cr, (std::vector<float>{19, 22, 43, 50}));
  // A^T @ B = [[1, 3], [2, 4]] @ B = [[26, 30], [38, 44]]
  matmul(A.data(), B.data(), C.data(), 2, 2, 2, /*trans_a=*/true);
  EXPECT_EQ(C, (std::vector<float>{26, 30, 38, 44}));
  // A @ B^T = [[17, 23], [39, 53]]
  ref::matmul(A.data(), B.data(), Cr.data(), 2, 2, 2, false, /*trans_b=*/true);
  EXPECT_EQ(Cr, (std::vector<float>{17, 23, 39, 53}));
}

// Called from inside an OpenMP parallel region (as attention does, one set per thread),
// each product is computed whole and correctly.
TEST(Matmul, InsideParallelRegionMatchesReference) {
  Rng rng(13);
  const int64_t sets = 8, M = 70, N = 33, K = 129;
  const auto A = random_vec(sets * M * K, rng), B = random_vec(sets * K * N, rng);
  std::vector<float> C(sets * M * N), Cr(sets * M * N);
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < sets; ++s)
    matmul(A.data() + s * M * K, B.data() + s * K * N, C.data() + s * M * N, M, N, K);
  for (int64_t s = 0; s < sets; ++s)
    ref::matmul(A.data() + s * M * K, B.data() + s * K * N, Cr.data() + s * M * N, M, N, K);
  expect_close("matmul in parallel region", C, Cr, 1e-5, 1e-6 * K);
}

TEST(Matmul, BetaZeroIgnoresOldContentsAndEmptyK) {
  const std::vector<float> A = {1, 2}, B = {3, 4};
  std::vector<float> C = {NAN, NAN, NAN, NAN}, Cr = C;
  matmul(A.data(), B.data(), C.data(), 2, 2, 1);  // outer product
  ref::matmul(A.data(), B.data(), Cr.data(), 2, 2, 1);
  EXPECT_EQ(C, (std::vector<float>{3, 4, 6, 8}));
  EXPECT_EQ(Cr, C);
  // K = 0: C = beta * C
  matmul(A.data(), B.data(), C.data(), 2, 2, 0, false, false, 1.0f, 0.5f);
  EXPECT_EQ(C, (std::vector<float>{1.5f, 2, 3, 4}));
  matmul(A.data(), B.data(), C.data(), 2, 2, 0);
  EXPECT_EQ(C, (std::vector<float>{0, 0, 0, 0}));
}

// y[n, o] = b[o] + sum_c x[n, c] W[o, c], checked at the last entry by hand.
TEST(Linear, ForwardByHand) {
  Rng rng(2);
  for (auto [N, C, OC] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                          {7, 33, 65},
                          {65, 7, 33},
                          {33, 65, 7},
                          {128, 96, 384}}) {
    const auto x = random_vec(N * C, rng), W = random_vec(OC * C, rng, 0.2f),
               b = random_vec(OC, rng);
    std::vector<float> y(N * OC);
    linear_forward(x.data(), W.data(), b.data(), y.data(), N, C, OC);
    double expected = b[OC - 1];
    for (int64_t c = 0; c < C; ++c)
      expected += static_cast<double>(x[(N - 1) * C + c]) * W[(OC - 1) * C + c];
    EXPECT_NEAR(y[N * OC - 1], expected, 1e-4);
  }
}

// Up to kRowInvariantMaxRows rows, each row of y is bit for bit what that row gives alone
// (batched decoding relies on it), and close to the reference.
TEST(Linear, FewRowsAreEachComputedAlone) {
  Rng rng(5);
  for (auto [C, OC] :
       {std::pair<int64_t, int64_t>{1, 1}, {7, 5}, {37, 53}, {64, 96}, {129, 33}, {200, 400}}) {
    const int64_t N = kRowInvariantMaxRows;
    const auto x = random_vec(N * C, rng), W = random_vec(OC * C, rng, 0.3f),
               b = random_vec(OC, rng);
    std::vector<float> all(N * OC), alone(OC), ref_y(N * OC);
    ref::linear_forward(x.data(), W.data(), b.data(), ref_y.data(), N, C, OC);
    for (int64_t rows : {int64_t{2}, int64_t{3}, int64_t{7}, N}) {
      linear_forward(x.data(), W.data(), b.data(), all.data(), rows, C, OC);
      for (int64_t n = 0; n < rows; ++n) {
        linear_forward(x.data() + n * C, W.data(), b.data(), alone.data(), 1, C, OC);
        for (int64_t o = 0; o < OC; ++o)
          ASSERT_EQ(alone[o], all[n * OC + o])
              << "C=" << C << " OC=" << OC << " rows=" << rows << " row " << n << " output " << o;
      }
    }
    expect_close("linear rows vs ref", all, ref_y, 1e-5, 1e-5 * C);
  }
}

TEST(Linear, ReferenceBackwardMatchesFiniteDifferences) {
  Rng rng(4);
  const int64_t N = 5, C = 7, OC = 6;
  auto x = random_vec(N * C, rng), W = random_vec(OC * C, rng, 0.5f), b = random_vec(OC, rng);
  const auto r = random_vec(N * OC, rng);  // L = sum(y * r), so dy = r
  auto loss = [&] {
    std::vector<float> y(N * OC);
    ref::linear_forward(x.data(), W.data(), b.data(), y.data(), N, C, OC);
    return weighted_sum(y, r);
  };
  std::vector<float> dx(N * C), dW(OC * C, 0.0f), db(OC, 0.0f);
  ref::linear_backward(r.data(), x.data(), W.data(), dx.data(), dW.data(), db.data(), N, C, OC);
  expect_grad("linear dx", x, dx, loss);
  expect_grad("linear dW", W, dW, loss);
  expect_grad("linear db", b, db, loss);
}

}  // namespace
}  // namespace tinylm::ops
