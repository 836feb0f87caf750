// Tiled attention (online softmax, weights recomputed in backward): the row log-sum-exp
// against the scores summed in double (fast and ref), with causal and padding masks,
// query/key counts that are not multiples of the tiles, fully masked rows; fully masked
// sets; determinism across thread counts. Fast vs reference (y, lse, dq, dk, dv) on these
// shapes: the op table test (tests/backend/op_table_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ops/attention.h"
#include "ops/gradcheck.h"
#include "tensor/threads.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_same_bits_across_thread_counts;
using ops_test::random_vec;

struct TiledCase {
  AttentionShape s;
  bool causal;
  int64_t mask_sets;  // 0: no additive mask; else M sets of [Tq, Tk]
};

// A padding-style mask: set m hides the last (m + 1) keys from every query, and, in set 0,
// hides every key from query row 1 (a fully masked row).
std::vector<float> padding_mask(const AttentionShape& s, int64_t sets) {
  std::vector<uint8_t> keep(sets * s.Tq * s.Tk, 1);
  for (int64_t m = 0; m < sets; ++m)
    for (int64_t i = 0; i < s.Tq; ++i)
      for (int64_t j = 0; j < s.Tk; ++j) {
        const bool hidden = j >= s.Tk - (m + 1) || (m == 0 && i == 1);
        if (hidden) keep[(m * s.Tq + i) * s.Tk + j] = 0;
      }
  return mask_from_bool(keep.data(), keep.size());
}

// lse: log of sum_j exp(score_j) over the allowed keys, from the scores in double (-inf
// for a row that sees no key).
TEST(AttentionTiled, LogSumExpIsTheScoresSummedInDouble) {
  const TiledCase cases[] = {
      {{1, 1, 1, 1, 1}, false, 0},      {{6, 7, 7, 5, 4}, true, 0},
      {{4, 33, 33, 16, 16}, true, 2},   {{2, 7, 65, 8, 3}, true, 0},  // Tq < Tk (KV cache)
      {{3, 5, 9, 4, 6}, false, 3},      {{2, 200, 200, 16, 16}, true, 0},
      {{4, 129, 300, 8, 8}, true, 2},   {{2, 150, 150, 64, 64}, false, 1},
      {{2, 256, 256, 64, 64}, true, 0},  // the 10.65M model's per-head shape
  };
  Rng rng(60);
  for (const TiledCase& c : cases) {
    const auto& s = c.s;
    const std::string what = "N=" + std::to_string(s.N) + " Tq=" + std::to_string(s.Tq) +
                             " Tk=" + std::to_string(s.Tk) + " causal=" + std::to_string(c.causal) +
                             " sets=" + std::to_string(c.mask_sets);
    const auto q = random_vec(s.N * s.Tq * s.Dk, rng), k = random_vec(s.N * s.Tk * s.Dk, rng),
               v = random_vec(s.N * s.Tk * s.Dv, rng);
    std::vector<float> add;
    AttentionMask mask;
    mask.causal = c.causal;
    if (c.mask_sets > 0) {
      add = padding_mask(s, c.mask_sets);
      mask.additive = add.data();
      mask.additive_sets = c.mask_sets;
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.Dk));
    for (bool fast : {true, false}) {
      std::vector<float> y(s.N * s.Tq * s.Dv), lse(s.N * s.Tq);
      (fast ? attention_forward_tiled : ref::attention_forward_tiled)(
          q.data(), k.data(), v.data(), y.data(), lse.data(), s, scale, mask, 0.0f, 0);
      const std::string tag = what + (fast ? " (fast)" : " (ref)");
      for (int64_t n = 0; n < s.N; ++n)
        for (int64_t i = 0; i < s.Tq; ++i) {
          const int64_t set = c.mask_sets ? n / (s.N / c.mask_sets) : 0;
          double z = 0.0;
          for (int64_t j = 0; j < s.Tk; ++j) {
            const bool causal_ok = !c.causal || j <= i + s.Tk - s.Tq;
            const bool pad_ok = add.empty() || add[(set * s.Tq + i) * s.Tk + j] == 0.0f;
            if (!causal_ok || !pad_ok) continue;
            double dot = 0.0;
            for (int64_t d = 0; d < s.Dk; ++d)
              dot += double(q[(n * s.Tq + i) * s.Dk + d]) * k[(n * s.Tk + j) * s.Dk + d];
            z += std::exp(dot * scale);
          }
          const float got = lse[n * s.Tq + i];
          if (z == 0.0) {
            EXPECT_EQ(got, -std::numeric_limits<float>::infinity()) << tag << " row " << i;
          } else {
            EXPECT_NEAR(got, std::log(z), 1e-5 * (1 + std::fabs(std::log(z)))) << tag;
          }
        }
    }
  }
}

// Rows that see no key at all give y = 0, lse = -inf and zero gradients, not NaN.
TEST(AttentionTiled, FullyMaskedSetGivesZeros) {
  const AttentionShape s{2, 3, 4, 2, 2};
  Rng rng(61);
  const auto q = random_vec(s.N * s.Tq * s.Dk, rng), k = random_vec(s.N * s.Tk * s.Dk, rng),
             v = random_vec(s.N * s.Tk * s.Dv, rng), dy = random_vec(s.N * s.Tq * s.Dv, rng);
  const std::vector<uint8_t> keep(s.Tq * s.Tk, 0);
  const auto add = mask_from_bool(keep.data(), keep.size());
  const AttentionMask mask{false, add.data(), 1};
  std::vector<float> y(s.N * s.Tq * s.Dv, 1.0f), lse(s.N * s.Tq), dq(q.size(), 1.0f),
      dk(k.size(), 1.0f), dv(v.size(), 1.0f);
  attention_forward_tiled(q.data(), k.data(), v.data(), y.data(), lse.data(), s, 0.5f, mask);
  attention_backward_tiled(dy.data(), q.data(), k.data(), v.data(), y.data(), lse.data(), dq.data(),
                           dk.data(), dv.data(), s, 0.5f, mask);
  for (float x : y) EXPECT_EQ(x, 0.0f);
  for (float x : lse) EXPECT_EQ(x, -std::numeric_limits<float>::infinity());
  for (const auto* g : {&dq, &dk, &dv})
    for (float x : *g) EXPECT_EQ(x, 0.0f);
}

TEST(AttentionTiled, DeterministicAcrossRunsAndThreadCounts) {
  const AttentionShape s{6, 130, 130, 16, 16};
  Rng rng(62);
  const auto q = random_vec(s.N * s.Tq * s.Dk, rng), k = random_vec(s.N * s.Tk * s.Dk, rng),
             v = random_vec(s.N * s.Tk * s.Dv, rng), dy = random_vec(s.N * s.Tq * s.Dv, rng);
  expect_same_bits_across_thread_counts([&] {
    std::vector<float> y(s.N * s.Tq * s.Dv), lse(s.N * s.Tq), dq(q.size()), dk(k.size()),
        dv(v.size());
    AttentionMask mask;
    mask.causal = true;
    attention_forward_tiled(q.data(), k.data(), v.data(), y.data(), lse.data(), s, 0.25f, mask);
    attention_backward_tiled(dy.data(), q.data(), k.data(), v.data(), y.data(), lse.data(),
                             dq.data(), dk.data(), dv.data(), s, 0.25f, mask);
    for (auto* t : {&lse, &dq, &dk, &dv}) y.insert(y.end(), t->begin(), t->end());
    return y;
  });
}

}  // namespace
}  // namespace tinylm::ops
