// matmul and linear: fast (sgemm) vs reference on odd shapes, all transposes,
// alpha/beta; linear backward vs reference and finite differences.
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

TEST(Matmul, FastMatchesReferenceAllShapesAndTransposes) {
  Rng rng(1);
  const int64_t sizes[] = {1, 7, 33, 65};
  for (int64_t M : sizes)
    for (int64_t N : sizes)
      for (int64_t K : {int64_t{1}, int64_t{7}, int64_t{65}})
        for (int t = 0; t < 4; ++t) {
          const bool ta = t & 1, tb = t & 2;
          const auto A = random_vec(M * K, rng), B = random_vec(K * N, rng);
          const auto C0 = random_vec(M * N, rng);
          for (auto [alpha, beta] :
               {std::pair{1.0f, 0.0f}, std::pair{0.5f, 1.0f}, std::pair{-2.0f, 0.25f}}) {
            auto C = C0, Cr = C0;
            matmul(A.data(), B.data(), C.data(), M, N, K, ta, tb, alpha, beta);
            ref::matmul(A.data(), B.data(), Cr.data(), M, N, K, ta, tb, alpha, beta);
            expect_close("matmul M=" + std::to_string(M) + " N=" + std::to_string(N) +
                             " K=" + std::to_string(K) + " t=" + std::to_string(t),
                         C, Cr, 1e-5, 1e-5);
          }
        }
}

// The odd sizes around the kernels' register blocks (AVX-512 rows of 16, AVX2 rows of 8)
// and cache blocks, all four transposes, through the fast path.
TEST(Matmul, FastMatchesReferenceOddShapes) {
  Rng rng(11);
  const int64_t sizes[] = {1, 7, 17, 33, 65, 129};
  for (int64_t M : sizes)
    for (int64_t N : sizes)
      for (int64_t K : sizes)
        for (int t = 0; t < 4; ++t) {
          const bool ta = t & 1, tb = t & 2;
          const auto A = random_vec(M * K, rng), B = random_vec(K * N, rng);
          const auto C0 = random_vec(M * N, rng);
          auto C = C0, Cr = C0;
          matmul(A.data(), B.data(), C.data(), M, N, K, ta, tb, 0.75f, 0.5f);
          ref::matmul(A.data(), B.data(), Cr.data(), M, N, K, ta, tb, 0.75f, 0.5f);
          expect_close("matmul M=" + std::to_string(M) + " N=" + std::to_string(N) +
                           " K=" + std::to_string(K) + " t=" + std::to_string(t),
                       C, Cr, 1e-5, 1e-6 * K);
        }
}

// Shapes of a training step (tall-skinny activations, a K of thousands for the weight
// gradients), large enough that the library blocks and threads them.
TEST(Matmul, FastMatchesReferenceTrainingShapes) {
  Rng rng(12);
  struct Case {
    int64_t M, N, K;
    bool ta, tb;
  };
  for (const Case& c : {Case{1000, 67, 384, false, true}, Case{515, 384, 130, false, false},
                        Case{65, 96, 3001, true, false}, Case{1, 1153, 385, false, true}}) {
    const auto A = random_vec(c.M * c.K, rng), B = random_vec(c.K * c.N, rng);
    std::vector<float> C(c.M * c.N), Cr(c.M * c.N);
    matmul(A.data(), B.data(), C.data(), c.M, c.N, c.K, c.ta, c.tb);
    ref::matmul(A.data(), B.data(), Cr.data(), c.M, c.N, c.K, c.ta, c.tb);
    expect_close("matmul M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) +
                     " K=" + std::to_string(c.K),
                 C, Cr, 1e-5, 1e-6 * c.K);
  }
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

TEST(Linear, ForwardFastMatchesReference) {
  Rng rng(2);
  for (auto [N, C, OC] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                          {7, 33, 65},
                          {65, 7, 33},
                          {33, 65, 7},
                          {128, 96, 384}}) {
    const auto x = random_vec(N * C, rng), W = random_vec(OC * C, rng, 0.2f),
               b = random_vec(OC, rng);
    for (bool bias : {true, false}) {
      std::vector<float> y(N * OC), yr(N * OC);
      linear_forward(x.data(), W.data(), bias ? b.data() : nullptr, y.data(), N, C, OC);
      ref::linear_forward(x.data(), W.data(), bias ? b.data() : nullptr, yr.data(), N, C, OC);
      expect_close("linear y", y, yr, 1e-5, 1e-5);
    }
    // y[n, o] = b[o] + sum_c x[n, c] W[o, c], checked at one entry by hand
    std::vector<float> y(N * OC);
    linear_forward(x.data(), W.data(), b.data(), y.data(), N, C, OC);
    double expected = b[OC - 1];
    for (int64_t c = 0; c < C; ++c)
      expected += static_cast<double>(x[(N - 1) * C + c]) * W[(OC - 1) * C + c];
    EXPECT_NEAR(y[N * OC - 1], expected, 1e-4);
  }
}

TEST(Linear, BackwardFastMatchesReference) {
  Rng rng(3);
  for (auto [N, C, OC] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                          {7, 33, 65},
                          {65, 7, 33},
                          {33, 65, 7},
                          {256, 64, 200}}) {
    const auto x = random_vec(N * C, rng), W = random_vec(OC * C, rng, 0.2f),
               dy = random_vec(N * OC, rng);
    const auto dW0 = random_vec(OC * C, rng), db0 = random_vec(OC, rng);  // accumulated into
    std::vector<float> dx(N * C), dxr(N * C);
    auto dW = dW0, dWr = dW0, db = db0, dbr = db0;
    linear_backward(dy.data(), x.data(), W.data(), dx.data(), dW.data(), db.data(), N, C, OC);
    ref::linear_backward(dy.data(), x.data(), W.data(), dxr.data(), dWr.data(), dbr.data(), N, C,
                         OC);
    // A float sum of K products of O(1) numbers may be off by ~K ulp of 1 even when the
    // sum itself is small (cancellation), so the absolute tolerance grows with K.
    expect_close("linear dx", dx, dxr, 1e-5, 1e-6 * OC);
    expect_close("linear dW", dW, dWr, 1e-5, 1e-6 * N);
    expect_close("linear db", db, dbr, 1e-5, 1e-6 * N);
    // null dx and db are skipped
    auto dW2 = dW0;
    linear_backward(dy.data(), x.data(), W.data(), nullptr, dW2.data(), nullptr, N, C, OC);
    expect_close("linear dW (no dx, no db)", dW2, dWr, 1e-5, 1e-6 * N);
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
