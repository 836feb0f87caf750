// Scaled dot-product attention: the course's worked example by hand, a naive double loop
// written here (unmasked, causal, padding via mask_from_bool, both, KV-cache shapes,
// fully masked rows, mask broadcast), the dropout mask's draws, finite differences of the
// reference backward, determinism. Fast vs reference forward/backward (masks, float
// biases, dropout with the same seed): the op table test (tests/backend/op_table_test.cpp).
#include "ops/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ops/gradcheck.h"
#include "tensor/threads.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::bit_equal;
using ops_test::expect_grad;
using ops_test::expect_same_bits_across_thread_counts;
using ops_test::random_vec;
using ops_test::weighted_sum;

// ---------------------------------------------------------------------------------------
// The naive attention, written from the definition in double precision.
struct Naive {
  std::vector<double> y, att;
};

Naive naive_attention(const std::vector<float>& q, const std::vector<float>& k,
                      const std::vector<float>& v, const AttentionShape& s, double scale,
                      bool causal, const std::vector<uint8_t>* keep, int64_t M) {
  Naive out;
  out.y.assign(s.N * s.Tq * s.Dv, 0.0);
  out.att.assign(s.N * s.Tq * s.Tk, 0.0);
  for (int64_t n = 0; n < s.N; ++n) {
    const int64_t m = n / (s.N / M);  // which mask set
    for (int64_t i = 0; i < s.Tq; ++i) {
      std::vector<double> score(s.Tk);
      std::vector<bool> allowed(s.Tk);
      for (int64_t j = 0; j < s.Tk; ++j) {
        double dot = 0.0;
        for (int64_t c = 0; c < s.Dk; ++c)
          dot += double(q[(n * s.Tq + i) * s.Dk + c]) * k[(n * s.Tk + j) * s.Dk + c];
        score[j] = dot * scale;
        allowed[j] = (!causal || j <= i + (s.Tk - s.Tq)) &&
                     (!keep || (*keep)[(m * s.Tq + i) * s.Tk + j] != 0);
      }
      double mx = -1e300, z = 0.0;
      for (int64_t j = 0; j < s.Tk; ++j)
        if (allowed[j]) mx = std::max(mx, score[j]);
      for (int64_t j = 0; j < s.Tk; ++j)
        if (allowed[j]) z += std::exp(score[j] - mx);
      for (int64_t j = 0; j < s.Tk; ++j) {
        const double a = allowed[j] ? std::exp(score[j] - mx) / z : 0.0;
        out.att[(n * s.Tq + i) * s.Tk + j] = a;
        for (int64_t d = 0; d < s.Dv; ++d)
          out.y[(n * s.Tq + i) * s.Dv + d] += a * v[(n * s.Tk + j) * s.Dv + d];
      }
    }
  }
  return out;
}

void expect_matches(const std::string& what, const std::vector<float>& got,
                    const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_FALSE(std::isnan(got[i])) << what << "[" << i << "] is NaN";
    if (std::fabs(got[i] - want[i]) > tol && reported++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: " << got[i] << " vs " << want[i];
  }
}

// Runs ref and fast forward and compares both with the naive loop.
void check_against_naive(const std::string& what, const AttentionShape& s, bool causal,
                         const std::vector<uint8_t>* keep, int64_t M, uint64_t seed) {
  Rng rng(seed);
  const auto q = random_vec(s.N * s.Tq * s.Dk, rng), k = random_vec(s.N * s.Tk * s.Dk, rng),
             v = random_vec(s.N * s.Tk * s.Dv, rng);
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.Dk));
  const Naive want = naive_attention(q, k, v, s, scale, causal, keep, M);
  std::vector<float> additive;
  AttentionMask mask;
  mask.causal = causal;
  if (keep) {
    additive = mask_from_bool(keep->data(), keep->size());
    mask.additive = additive.data();
    mask.additive_sets = M;
  }
  for (bool fast : {false, true}) {
    std::vector<float> y(s.N * s.Tq * s.Dv, NAN), att(s.N * s.Tq * s.Tk, NAN);
    if (fast)
      attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, scale, mask);
    else
      ref::attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, scale, mask);
    const std::string name = what + (fast ? " (fast)" : " (ref)");
    expect_matches(name + " y", y, want.y, 1e-5);
    expect_matches(name + " att", att, want.att, 1e-6);
  }
}

// ---------------------------------------------------------------------------------------
TEST(Attention, WorkedExample) {
  // Q = [[1,0],[0,1],[1,1]], K = [[1,0],[1,1],[0,1]], V = [[1,0],[0,2],[3,1]], d_k = 2.
  const std::vector<float> Q = {1, 0, 0, 1, 1, 1}, K = {1, 0, 1, 1, 0, 1}, V = {1, 0, 0, 2, 3, 1};
  const double QK[3][3] = {{1, 1, 0}, {0, 1, 1}, {1, 2, 1}};
  const double Vd[3][2] = {{1, 0}, {0, 2}, {3, 1}};
  const double scale = 1.0 / std::sqrt(2.0);

  // Q K^T itself.
  std::vector<float> qk(9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) qk[i * 3 + j] = Q[i * 2] * K[j * 2] + Q[i * 2 + 1] * K[j * 2 + 1];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(qk[i * 3 + j], QK[i][j]);

  // By hand: S = QK^T / sqrt 2, A = row softmax, Y = A V (optionally causal).
  auto by_hand = [&](bool causal, double A[3][3], double Y[3][2]) {
    for (int i = 0; i < 3; ++i) {
      double z = 0.0;
      for (int j = 0; j < 3; ++j)
        if (!causal || j <= i) z += std::exp(QK[i][j] * scale);
      for (int j = 0; j < 3; ++j)
        A[i][j] = (!causal || j <= i) ? std::exp(QK[i][j] * scale) / z : 0;
      for (int d = 0; d < 2; ++d) {
        Y[i][d] = 0;
        for (int j = 0; j < 3; ++j) Y[i][d] += A[i][j] * Vd[j][d];
      }
    }
  };
  double A[3][3], Y[3][2], Ac[3][3], Yc[3][2];
  by_hand(false, A, Y);
  by_hand(true, Ac, Yc);
  // Spot values: row 0 has scores (1, 1, 0)/sqrt 2, so A[0][0] = A[0][1] = e^a / (2 e^a + 1).
  const double ea = std::exp(scale);
  EXPECT_NEAR(A[0][0], ea / (2 * ea + 1), 1e-15);
  EXPECT_NEAR(A[0][2], 1 / (2 * ea + 1), 1e-15);

  for (bool fast : {false, true}) {
    for (bool causal : {false, true}) {
      std::vector<float> y(6), att(9);
      AttentionMask mask;
      mask.causal = causal;
      const AttentionShape s{1, 3, 3, 2, 2};
      if (fast)
        attention_forward(Q.data(), K.data(), V.data(), y.data(), att.data(), s, scale, mask);
      else
        ref::attention_forward(Q.data(), K.data(), V.data(), y.data(), att.data(), s, scale, mask);
      const auto& Aw = causal ? Ac : A;
      const auto& Yw = causal ? Yc : Y;
      for (int i = 0; i < 3; ++i) {
        double row = 0;
        for (int j = 0; j < 3; ++j) {
          EXPECT_NEAR(att[i * 3 + j], Aw[i][j], 1e-6) << fast << causal << i << j;
          row += att[i * 3 + j];
        }
        EXPECT_NEAR(row, 1.0, 1e-6);
        for (int d = 0; d < 2; ++d) EXPECT_NEAR(y[i * 2 + d], Yw[i][d], 1e-6);
      }
      if (causal) {
        for (int i = 0; i < 3; ++i)
          for (int j = i + 1; j < 3; ++j) EXPECT_EQ(att[i * 3 + j], 0.0f);
        EXPECT_EQ(att[0], 1.0f);  // the first query sees only itself
        for (int j = 0; j < 3; ++j) EXPECT_NEAR(att[6 + j], A[2][j], 1e-6);  // last row unmasked
        EXPECT_NEAR(y[0], 1.0, 1e-6);                                        // = V[0]
        EXPECT_NEAR(y[1], 0.0, 1e-6);
      }
    }
  }
}

TEST(Attention, MaskFromBool) {
  const std::vector<uint8_t> keep = {1, 0, 2, 0};
  const auto add = mask_from_bool(keep.data(), keep.size());
  ASSERT_EQ(add.size(), 4u);
  EXPECT_EQ(add[0], 0.0f);
  EXPECT_EQ(add[2], 0.0f);
  EXPECT_TRUE(std::isinf(add[1]) && add[1] < 0);
  EXPECT_TRUE(std::isinf(add[3]) && add[3] < 0);
}

// Padding: batch element b has len[b] real tokens; no query may look at a padded key.
std::vector<uint8_t> padding_keep(const std::vector<int64_t>& len, int64_t Tq, int64_t Tk) {
  std::vector<uint8_t> keep(len.size() * Tq * Tk);
  for (size_t b = 0; b < len.size(); ++b)
    for (int64_t i = 0; i < Tq; ++i)
      for (int64_t j = 0; j < Tk; ++j) keep[(b * Tq + i) * Tk + j] = j < len[b];
  return keep;
}

TEST(Attention, MatchesNaiveLoop) {
  const int64_t B = 2, H = 3, T = 7;
  const AttentionShape s{B * H, T, T, 5, 4};
  check_against_naive("unmasked", s, false, nullptr, 1, 1);
  check_against_naive("causal", s, true, nullptr, 1, 2);
  const auto keep = padding_keep({7, 4}, T, T);  // M = B: one mask per batch element
  check_against_naive("padding", s, false, &keep, B, 3);
  check_against_naive("causal+padding", s, true, &keep, B, 4);
  // odd sizes, one set
  check_against_naive("odd unmasked", {1, 33, 33, 7, 1}, false, nullptr, 1, 5);
  check_against_naive("odd causal", {3, 65, 65, 1, 7}, true, nullptr, 1, 6);
}

TEST(Attention, KvCacheShapesWithCausalMask) {
  // Tq < Tk: query i is at position i + (Tk - Tq); the last query sees every key.
  check_against_naive("Tq<Tk causal", {4, 3, 8, 5, 6}, true, nullptr, 1, 7);
  check_against_naive("Tq=1 causal", {2, 1, 9, 4, 4}, true, nullptr, 1, 8);
  check_against_naive("Tq<Tk unmasked", {2, 3, 8, 5, 6}, false, nullptr, 1, 9);
  // Tq < Tk with padding too (M = 1)
  const auto keep = padding_keep({6}, 3, 8);
  check_against_naive("Tq<Tk causal+padding", {2, 3, 8, 5, 6}, true, &keep, 1, 10);
  // Tq > Tk: the first queries see nothing at all
  check_against_naive("Tq>Tk causal", {2, 6, 4, 3, 3}, true, nullptr, 1, 11);
}

TEST(Attention, OneQueryMatchesNaiveLoop) {
  // A decoding step (Tq = 1) takes its own loops (ops/attention_one_query.h): key counts
  // around its blocks of 8 keys, widths around its 8 lanes and 64 outputs.
  uint64_t seed = 20;
  for (const int64_t Tk : {1, 7, 8, 9, 33})
    for (const int64_t D : {1, 5, 8, 64, 71})
      check_against_naive("one query Tk=" + std::to_string(Tk) + " D=" + std::to_string(D),
                          {3, 1, Tk, D, D == 64 ? 63 : D}, true, nullptr, 1, ++seed);
  const auto keep = padding_keep({5, 1}, 1, 9);  // M = 2 sets of 3 heads each
  check_against_naive("one query padding", {6, 1, 9, 16, 16}, false, &keep, 2, ++seed);
  const std::vector<uint8_t> none(9, 0);
  check_against_naive("one query nothing allowed", {1, 1, 9, 4, 4}, false, &none, 1, ++seed);
  check_against_naive("one query no keys", {2, 1, 0, 4, 4}, true, nullptr, 1, ++seed);
}

TEST(Attention, FullyMaskedRowGivesZerosNotNaN) {
  const int64_t B = 2, H = 2, T = 5;
  auto keep = padding_keep({5, 3}, T, T);
  for (int64_t j = 0; j < T; ++j) keep[(1 * T + 2) * T + j] = 0;  // element 1, query 2: nothing
  check_against_naive("masked row", {B * H, T, T, 4, 3}, false, &keep, B, 12);
  // and the gradients through such a row are zero, not NaN
  Rng rng(13);
  const AttentionShape s{B * H, T, T, 4, 3};
  const auto q = random_vec(s.N * T * 4, rng), k = random_vec(s.N * T * 4, rng),
             v = random_vec(s.N * T * 3, rng), dy = random_vec(s.N * T * 3, rng);
  const auto add = mask_from_bool(keep.data(), keep.size());
  AttentionMask mask{true, add.data(), B};
  for (bool fast : {false, true}) {
    std::vector<float> y(s.N * T * 3), att(s.N * T * T), dq(q.size()), dk(k.size()), dv(v.size());
    auto fwd = fast ? &attention_forward : &ref::attention_forward;
    auto bwd = fast ? &attention_backward : &ref::attention_backward;
    fwd(q.data(), k.data(), v.data(), y.data(), att.data(), s, 0.5f, mask, 0.0f, nullptr, 0);
    bwd(dy.data(), q.data(), k.data(), v.data(), att.data(), nullptr, dq.data(), dk.data(),
        dv.data(), s, 0.5f);
    for (int64_t h = 0; h < H; ++h) {
      const int64_t n = 1 * H + h;
      for (int64_t d = 0; d < 3; ++d) EXPECT_EQ(y[(n * T + 2) * 3 + d], 0.0f);
      for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(dq[(n * T + 2) * 4 + c], 0.0f);
    }
    for (float g : dq) EXPECT_FALSE(std::isnan(g));
    for (float g : dk) EXPECT_FALSE(std::isnan(g));
    for (float g : dv) EXPECT_FALSE(std::isnan(g));
  }
}

TEST(Attention, AdditiveMaskBroadcast) {
  // M = 1 serves every set; M = B serves the H heads of each batch element. Compare with
  // the same mask expanded to M = N.
  const int64_t B = 3, H = 2, T = 6, N = B * H;
  Rng rng(14);
  std::vector<uint8_t> keep_b(B * T * T);
  for (auto& x : keep_b) x = rng.uniform() < 0.7f;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < T; ++i) keep_b[(b * T + i) * T] = 1;  // key 0 always allowed
  check_against_naive("M=B", {N, T, T, 4, 4}, false, &keep_b, B, 15);
  const std::vector<uint8_t> keep_1(keep_b.begin(), keep_b.begin() + T * T);
  check_against_naive("M=1", {N, T, T, 4, 4}, true, &keep_1, 1, 16);

  // Expanded: set n uses keep_b[n / H].
  std::vector<uint8_t> keep_n(N * T * T);
  for (int64_t n = 0; n < N; ++n)
    std::copy(keep_b.begin() + (n / H) * T * T, keep_b.begin() + (n / H + 1) * T * T,
              keep_n.begin() + n * T * T);
  const AttentionShape s{N, T, T, 4, 4};
  const auto q = random_vec(N * T * 4, rng), k = random_vec(N * T * 4, rng),
             v = random_vec(N * T * 4, rng);
  const auto add_b = mask_from_bool(keep_b.data(), keep_b.size());
  const auto add_n = mask_from_bool(keep_n.data(), keep_n.size());
  std::vector<float> y1(N * T * 4), y2(N * T * 4), a1(N * T * T), a2(N * T * T);
  attention_forward(q.data(), k.data(), v.data(), y1.data(), a1.data(), s, 0.5f,
                    {false, add_b.data(), B});
  attention_forward(q.data(), k.data(), v.data(), y2.data(), a2.data(), s, 0.5f,
                    {false, add_n.data(), N});
  EXPECT_TRUE(bit_equal(y1, y2));
  EXPECT_TRUE(bit_equal(a1, a2));

  // M must divide N.
  EXPECT_THROW(attention_forward(q.data(), k.data(), v.data(), y1.data(), a1.data(), s, 0.5f,
                                 {false, add_b.data(), 4}),
               InputError);
  EXPECT_THROW(ref::attention_forward(q.data(), k.data(), v.data(), y1.data(), a1.data(), s, 0.5f,
                                      {false, add_b.data(), 4}),
               InputError);
}

TEST(Attention, DropoutMaskIsDrawnByPositionFromTheKey) {
  const AttentionShape s{3, 4, 5, 2, 2};
  const int64_t TT = s.N * s.Tq * s.Tk;
  Rng rng(30);
  const auto q = random_vec(s.N * s.Tq * s.Dk, rng), k = random_vec(s.N * s.Tk * s.Dk, rng),
             v = random_vec(s.N * s.Tk * s.Dv, rng);
  std::vector<float> y(s.N * s.Tq * s.Dv), att(TT), dm(TT), y0(y.size()), att0(TT);
  const uint64_t key = 0xD1CE5EEDull;
  attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, 0.7f, {}, 0.25f,
                    dm.data(), key);
  for (int64_t i = 0; i < TT; ++i)
    EXPECT_EQ(dm[i], counter_uniform(key, i) >= 0.25f ? 1.0f / 0.75f : 0.0f) << i;
  // y = (A * mask) v, with A the undropped weights (stored in att)
  attention_forward(q.data(), k.data(), v.data(), y0.data(), att0.data(), s, 0.7f, {});
  EXPECT_TRUE(bit_equal(att, att0));
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t i = 0; i < s.Tq; ++i)
      for (int64_t d = 0; d < s.Dv; ++d) {
        double acc = 0;
        for (int64_t j = 0; j < s.Tk; ++j) {
          const int64_t a = (n * s.Tq + i) * s.Tk + j;
          acc += double(att[a]) * dm[a] * v[(n * s.Tk + j) * s.Dv + d];
        }
        EXPECT_NEAR(y[(n * s.Tq + i) * s.Dv + d], acc, 1e-5);
      }
  // p > 0 without a mask buffer is refused
  EXPECT_THROW(attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, 0.7f, {},
                                 0.25f, nullptr, key),
               InputError);
  EXPECT_THROW(ref::attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, 0.7f,
                                      {}, 0.25f, nullptr, key),
               InputError);
}

TEST(Attention, ReferenceBackwardMatchesFiniteDifferences) {
  const int64_t B = 2, H = 2, T = 5;
  const AttentionShape s{B * H, T, T, 3, 4};
  Rng rng(40);
  auto q = random_vec(s.N * T * 3, rng), k = random_vec(s.N * T * 3, rng),
       v = random_vec(s.N * T * 4, rng);
  const auto r = random_vec(s.N * T * 4, rng);
  const auto keep = padding_keep({5, 3}, T, T);
  const auto add = mask_from_bool(keep.data(), keep.size());
  for (float p : {0.0f, 0.3f}) {
    const AttentionMask mask{true, add.data(), B};
    std::vector<float> dm(s.N * T * T);
    auto forward = [&](std::vector<float>& y, std::vector<float>& att) {
      // the same key, so the same dropout mask at every evaluation
      ref::attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, 0.6f, mask, p,
                             p > 0 ? dm.data() : nullptr, 99);
    };
    auto loss = [&] {
      std::vector<float> y(s.N * T * 4), att(s.N * T * T);
      forward(y, att);
      return weighted_sum(y, r);
    };
    std::vector<float> y(s.N * T * 4), att(s.N * T * T), dq(q.size()), dk(k.size()), dv(v.size());
    forward(y, att);
    ref::attention_backward(r.data(), q.data(), k.data(), v.data(), att.data(),
                            p > 0 ? dm.data() : nullptr, dq.data(), dk.data(), dv.data(), s, 0.6f);
    const std::string tag = " p=" + std::to_string(p);
    expect_grad("attention dq" + tag, q, dq, loss, 60);
    expect_grad("attention dk" + tag, k, dk, loss, 60);
    expect_grad("attention dv" + tag, v, dv, loss, 60);
  }
}

TEST(Attention, DeterministicAcrossRunsAndThreadCounts) {
  const AttentionShape s{8, 64, 64, 16, 16};
  Rng rng(50);
  const auto q = random_vec(s.N * s.Tq * s.Dk, rng), k = random_vec(s.N * s.Tk * s.Dk, rng),
             v = random_vec(s.N * s.Tk * s.Dv, rng), dy = random_vec(s.N * s.Tq * s.Dv, rng);
  expect_same_bits_across_thread_counts([&] {
    const int64_t TT = s.N * s.Tq * s.Tk;
    std::vector<float> y(s.N * s.Tq * s.Dv), att(TT), dm(TT), dq(q.size()), dk(k.size()),
        dv(v.size());
    AttentionMask mask;
    mask.causal = true;
    attention_forward(q.data(), k.data(), v.data(), y.data(), att.data(), s, 0.25f, mask, 0.1f,
                      dm.data(), 3);
    attention_backward(dy.data(), q.data(), k.data(), v.data(), att.data(), dm.data(), dq.data(),
                       dk.data(), dv.data(), s, 0.25f);
    for (auto* t : {&att, &dq, &dk, &dv}) y.insert(y.end(), t->begin(), t->end());
    return y;
  });
}

}  // namespace
}  // namespace tinylm::ops
