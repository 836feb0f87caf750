// Scaled dot-product attention, fast version. For each of the N sets (one per batch
// element and head):
//   q [Tq, Dk], k [Tk, Dk], v [Tk, Dv] -> S = q k^T * scale (+ masks) [Tq, Tk],
//   A = softmax_rows(S) (stored in att), A' = A * drop_mask, y = A' v [Tq, Dv]
// Backward (dy [Tq, Dv] per set; dq, dk, dv overwritten):
//   dv = A'^T dy ;  dA = (dy v^T) * drop_mask ;  dS = A * (dA - rowsum(dA * A))
//   dq = dS k * scale ;  dk = dS^T q * scale
// The sets run in parallel (one thread per set, OpenBLAS single-threaded inside); with a
// single set the softmax rows run in parallel instead and sgemm threads itself. A set
// with one query and no dropout (a decoding step) skips sgemm: ops/attention_one_query.h. The
// dropout mask is drawn before the attention itself, over [N, Tq, Tk] with the rule of
// dropout_draw_mask (ops/dropout.h), exactly as ref does.
#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/attention_check.h"
#include "ops/attention_one_query.h"
#include "ops/dropout.h"
#include "ops/matmul.h"
#include "ops/softmax.h"
#include "ops/thread_scratch.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// In place over S [Tq, Tk]: add the masks and take the row softmax. Causality only
// allows keys [0, end) with end = i + 1 + (Tk - Tq), so the rest of the row is set to 0
// without computing anything; a row whose allowed scores are all -inf becomes zeros.
void masked_softmax(float* S, const float* additive, bool causal, int64_t Tq, int64_t Tk,
                    bool parallel_rows) {
#pragma omp parallel for schedule(static) if (parallel_rows)
  for (int64_t i = 0; i < Tq; ++i) {
    float* r = S + i * Tk;
    const int64_t end = causal ? std::clamp<int64_t>(i + 1 + Tk - Tq, 0, Tk) : Tk;
    if (additive) {
      const float* a = additive + i * Tk;
#pragma omp simd
      for (int64_t j = 0; j < end; ++j) r[j] += a[j];
    }
    softmax_row(r, r, end);
    std::fill(r + end, r + Tk, 0.0f);
  }
}

}  // namespace

void check_attention(const AttentionShape& s, const AttentionMask& mask) {
  require(s.N >= 0 && s.Tq >= 0 && s.Tk >= 0 && s.Dk >= 0 && s.Dv >= 0,
          "attention: negative dimension");
  if (mask.additive) {
    require(mask.additive_sets >= 1 && s.N % mask.additive_sets == 0, [&] {
      return "attention: additive mask has " + std::to_string(mask.additive_sets) +
             " sets, which does not divide N = " + std::to_string(s.N);
    });
  }
}

std::vector<float> mask_from_bool(const uint8_t* keep, int64_t count) {
  std::vector<float> additive(count);
  for (int64_t i = 0; i < count; ++i) additive[i] = keep[i] ? 0.0f : kNegInf;
  return additive;
}

void attention_forward(const float* q, const float* k, const float* v, float* y, float* att,
                       const AttentionShape& s, float scale, const AttentionMask& mask,
                       float dropout_p, float* drop_mask, uint64_t dropout_key) {
  check_attention(s, mask);
  const auto [N, Tq, Tk, Dk, Dv] = s;
  const int64_t TT = Tq * Tk;
  require(dropout_p >= 0.0f && dropout_p <= 1.0f, [&] {
    return "attention: dropout probability " + std::to_string(dropout_p) + " is outside [0, 1]";
  });
  const bool drop = dropout_p > 0.0f;
  if (drop) {
    require(drop_mask != nullptr, "attention: dropout needs a mask buffer");
    dropout_draw_mask(drop_mask, N * TT, dropout_p, dropout_key);  // by position: any thread count
  } else if (drop_mask) {
    std::fill(drop_mask, drop_mask + N * TT, 1.0f);
  }
  const int64_t per_mask = mask.additive ? N / mask.additive_sets : 1;
  const bool parallel_rows = N == 1 && TT >= kMinParallel;

  thread_local std::vector<float> pool;        // kept from call to call
  ThreadScratch scratch(pool, drop ? TT : 0);  // A' for one set, per thread
  // Set n, with `dropped` this thread's room for A'.
  const auto one_set = [&](int64_t n, float* dropped) {
    float* A = att + n * TT;
    const float* add = mask.additive ? mask.additive + (n / per_mask) * TT : nullptr;
    if (Tq == 1 && !drop) {  // a decoding step
      attention_one_query(q + n * Dk, k + n * Tk * Dk, v + n * Tk * Dv, y + n * Dv, A, Tk, Dk, Dv,
                          scale, add);
      return;
    }
    matmul(q + n * Tq * Dk, k + n * Tk * Dk, A, Tq, Tk, Dk, false, /*trans_b=*/true, scale);
    masked_softmax(A, add, mask.causal, Tq, Tk, parallel_rows);
    const float* weights = A;
    if (drop) {
      const float* dm = drop_mask + n * TT;
#pragma omp simd
      for (int64_t i = 0; i < TT; ++i) dropped[i] = A[i] * dm[i];
      weights = dropped;
    }
    matmul(weights, v + n * Tk * Dv, y + n * Tq * Dv, Tq, Dv, Tk);
  };
  if (N == 1) {  // no region: one set is often one head of a decoding step, inside the
    one_set(0, scratch.mine());  // caller's region over heads (ops/parallel_for.h)
    return;
  }
#pragma omp parallel
  {
    float* dropped = scratch.mine();
#pragma omp for schedule(static)
    for (int64_t n = 0; n < N; ++n) one_set(n, dropped);
  }
}

void attention_backward(const float* dy, const float* q, const float* k, const float* v,
                        const float* att, const float* drop_mask, float* dq, float* dk, float* dv,
                        const AttentionShape& s, float scale) {
  check_attention(s, AttentionMask{});
  const auto [N, Tq, Tk, Dk, Dv] = s;
  const int64_t TT = Tq * Tk;
  const bool parallel_rows = N == 1 && TT >= kMinParallel;

  thread_local std::vector<float> pool;                    // kept from call to call
  ThreadScratch scratch(pool, TT + (drop_mask ? TT : 0));  // dA and A' for one set, per thread
#pragma omp parallel if (N > 1)
  {
    float* dA = scratch.mine();
    float* dropped = dA + TT;
#pragma omp for schedule(static)
    for (int64_t n = 0; n < N; ++n) {
      const float* A = att + n * TT;
      const float* dyn = dy + n * Tq * Dv;
      const float* dm = drop_mask ? drop_mask + n * TT : nullptr;
      const float* weights = A;  // A', what multiplied v in forward
      if (dm) {
#pragma omp simd
        for (int64_t i = 0; i < TT; ++i) dropped[i] = A[i] * dm[i];
        weights = dropped;
      }
      matmul(weights, dyn, dv + n * Tk * Dv, Tk, Dv, Tq, /*trans_a=*/true);   // A'^T dy
      matmul(dyn, v + n * Tk * Dv, dA, Tq, Tk, Dv, false, /*trans_b=*/true);  // dy v^T
#pragma omp parallel for schedule(static) if (parallel_rows)
      for (int64_t i = 0; i < Tq; ++i) {  // dA -> dS in place, row by row
        float* d = dA + i * Tk;
        const float* a = A + i * Tk;
        if (dm) {
#pragma omp simd
          for (int64_t j = 0; j < Tk; ++j) d[j] *= dm[i * Tk + j];
        }
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (int64_t j = 0; j < Tk; ++j) dot += d[j] * a[j];
#pragma omp simd
        for (int64_t j = 0; j < Tk; ++j) d[j] = a[j] * (d[j] - dot);
      }
      matmul(dA, k + n * Tk * Dk, dq + n * Tq * Dk, Tq, Dk, Tk, false, false, scale);
      matmul(dA, q + n * Tq * Dk, dk + n * Tk * Dk, Tk, Dk, Tq, true, false, scale);
    }
  }
}

}  // namespace tinylm::ops
