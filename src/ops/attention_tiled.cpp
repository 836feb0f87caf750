// Scaled dot-product attention in tiles, for training: never stores the [Tq, Tk] weights
// or the dropout mask. Same maths as attention.cpp (ops/attention.h), for each of the N sets:
//   q [Tq, Dk], k [Tk, Dk], v [Tk, Dv] -> y [Tq, Dv], lse [Tq]
// Forward, one block of kQueryBlock query rows at a time, over blocks of kKeyBlock keys
// with an online softmax: a running row maximum m and sum l, rescaling the partial
// output when m grows, so y = sum_j exp(s_j - m) keep_j v_j / l and lse = m + log(l)
// (keep: the dropout mask's tile, drawn again from the key; 1 without dropout).
// Backward recomputes each tile of weights from lse (P = exp(S - lse)) and of the mask,
// so only q, k, v, y and lse are kept between the passes:
//   dv += (P keep)^T dy ;  dP = (dy v^T) keep ;  dS = P * (dP - rowsum(dy * y)) ;
//   dq += dS k * scale ;  dk += dS^T q * scale
// (rowsum(dy * y) = rowsum(dP * P) also with dropout, since y = (P keep) v.)
// The sets run in parallel, one thread per set (sgemm single-threaded inside), so every
// sum is taken in the same order whatever the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/attention.h"
#include "ops/attention_check.h"
#include "ops/dropout_keep.h"
#include "ops/exp_simd.h"
#include "ops/matmul.h"
#include "ops/thread_scratch.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

constexpr int64_t kQueryBlock = 64;
constexpr int64_t kKeyBlock = 128;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Keys a query row may see because of causality: [0, causal_end).
int64_t causal_end(bool causal, int64_t i, int64_t Tq, int64_t Tk) {
  return causal ? std::clamp<int64_t>(i + 1 + Tk - Tq, 0, Tk) : Tk;
}

// S [rows, cols] holds q_blk k_blk^T * scale for queries i0.. and keys j0..; add the
// additive mask and set the causally hidden scores to -inf.
void mask_tile(float* S, const float* additive, bool causal, int64_t i0, int64_t rows, int64_t j0,
               int64_t cols, int64_t Tq, int64_t Tk) {
  for (int64_t r = 0; r < rows; ++r) {
    float* s = S + r * cols;
    if (additive) {
      const float* a = additive + (i0 + r) * Tk + j0;
#pragma omp simd
      for (int64_t c = 0; c < cols; ++c) s[c] += a[c];
    }
    const int64_t end = causal_end(causal, i0 + r, Tq, Tk) - j0;
    for (int64_t c = std::max<int64_t>(end, 0); c < cols; ++c) s[c] = kNegInf;
  }
}

// Keys the query rows [i0, i0 + rows) may see at all: [0, key_limit).
int64_t key_limit(bool causal, int64_t i0, int64_t rows, int64_t Tq, int64_t Tk) {
  return causal_end(causal, i0 + rows - 1, Tq, Tk);
}

void check_dropout(float p) {
  require(p >= 0.0f && p <= 1.0f, [&] {
    return "attention: dropout probability " + std::to_string(p) + " is outside [0, 1]";
  });
}

// keep [rows, cols]: the dropout mask's tile of set n at (i0, j0), drawn by
// dropout_draw_mask's rule from key (entry (n Tq + i) Tk + j of [N, Tq, Tk]).
void draw_keep_tile(float* keep, int64_t n, int64_t i0, int64_t rows, int64_t j0, int64_t cols,
                    int64_t Tq, int64_t Tk, float p, uint64_t key) {
  const float scale = 1.0f / (1.0f - p);  // inf for p == 1, but then nothing is kept
  for (int64_t r = 0; r < rows; ++r) {
    const auto first = static_cast<uint64_t>((n * Tq + i0 + r) * Tk + j0);
    float* row = keep + r * cols;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) row[c] = dropout_keep(key, first + c, p, scale);
  }
}

void multiply_tile(float* x, const float* keep, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) x[i] *= keep[i];
}

}  // namespace

void attention_forward_tiled(const float* q, const float* k, const float* v, float* y, float* lse,
                             const AttentionShape& s, float scale, const AttentionMask& mask,
                             float dropout_p, uint64_t dropout_key) {
  check_attention(s, mask);
  check_dropout(dropout_p);
  const auto [N, Tq, Tk, Dk, Dv] = s;
  const int64_t per_mask = mask.additive ? N / mask.additive_sets : 1;
  const bool drop = dropout_p > 0.0f;

  constexpr int64_t kTile = kQueryBlock * kKeyBlock;
  thread_local std::vector<float> pool;                      // kept from call to call
  ThreadScratch scratch(pool, 2 * kTile + 2 * kQueryBlock);  // S, keep, m, l per thread
#pragma omp parallel
  {
    float* S = scratch.mine();
    float* keep = S + kTile;
    float* m = keep + kTile;
    float* l = m + kQueryBlock;
#pragma omp for schedule(static)
    for (int64_t n = 0; n < N; ++n) {
      const float* qn = q + n * Tq * Dk;
      const float* kn = k + n * Tk * Dk;
      const float* vn = v + n * Tk * Dv;
      const float* add = mask.additive ? mask.additive + (n / per_mask) * Tq * Tk : nullptr;
      for (int64_t i0 = 0; i0 < Tq; i0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, Tq - i0);
        float* O = y + (n * Tq + i0) * Dv;  // the running output, [rows, Dv]
        std::fill(O, O + rows * Dv, 0.0f);
        std::fill(m, m + kQueryBlock, kNegInf);
        std::fill(l, l + kQueryBlock, 0.0f);
        const int64_t limit = key_limit(mask.causal, i0, rows, Tq, Tk);
        for (int64_t j0 = 0; j0 < limit; j0 += kKeyBlock) {
          const int64_t cols = std::min(kKeyBlock, limit - j0);
          matmul(qn + i0 * Dk, kn + j0 * Dk, S, rows, cols, Dk, false, true, scale);
          mask_tile(S, add, mask.causal, i0, rows, j0, cols, Tq, Tk);
          for (int64_t r = 0; r < rows; ++r) {  // S row -> P row, rescale O row
            float* p = S + r * cols;
            float mx = m[r];
#pragma omp simd reduction(max : mx)
            for (int64_t c = 0; c < cols; ++c) mx = std::fmax(mx, p[c]);
            if (mx == kNegInf) {  // nothing allowed so far in this row
              std::fill(p, p + cols, 0.0f);
              continue;
            }
            float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
            for (int64_t c = 0; c < cols; ++c) {
              p[c] = exp_simd(p[c] - mx);
              sum += p[c];
            }
            const float rescale = std::exp(m[r] - mx);  // 0 when m was -inf
            if (rescale != 1.0f) {
              float* o = O + r * Dv;
#pragma omp simd
              for (int64_t d = 0; d < Dv; ++d) o[d] *= rescale;
            }
            l[r] = l[r] * rescale + sum;
            m[r] = mx;
          }
          if (drop) {  // l sums the weights before dropout, y the dropped ones
            draw_keep_tile(keep, n, i0, rows, j0, cols, Tq, Tk, dropout_p, dropout_key);
            multiply_tile(S, keep, rows * cols);
          }
          matmul(S, vn + j0 * Dv, O, rows, Dv, cols, false, false, 1.0f, 1.0f);
        }
        for (int64_t r = 0; r < rows; ++r) {  // normalise; a row with no key gives y = 0
          const float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
          float* o = O + r * Dv;
#pragma omp simd
          for (int64_t d = 0; d < Dv; ++d) o[d] *= inv;
          lse[n * Tq + i0 + r] = l[r] > 0.0f ? m[r] + std::log(l[r]) : kNegInf;
        }
      }
    }
  }
}

void attention_backward_tiled(const float* dy, const float* q, const float* k, const float* v,
                              const float* y, const float* lse, float* dq, float* dk, float* dv,
                              const AttentionShape& s, float scale, const AttentionMask& mask,
                              float dropout_p, uint64_t dropout_key) {
  check_attention(s, mask);
  check_dropout(dropout_p);
  const auto [N, Tq, Tk, Dk, Dv] = s;
  const int64_t per_mask = mask.additive ? N / mask.additive_sets : 1;
  const bool drop = dropout_p > 0.0f;

  constexpr int64_t kTile = kQueryBlock * kKeyBlock;
  thread_local std::vector<float> pool;         // kept from call to call
  ThreadScratch scratch(pool, 3 * kTile + Tq);  // P, dP, keep, delta per thread
#pragma omp parallel
  {
    float* P = scratch.mine();
    float* dP = P + kTile;
    float* keep = dP + kTile;
    float* delta = keep + kTile;
#pragma omp for schedule(static)
    for (int64_t n = 0; n < N; ++n) {
      const float* qn = q + n * Tq * Dk;
      const float* kn = k + n * Tk * Dk;
      const float* vn = v + n * Tk * Dv;
      const float* dyn = dy + n * Tq * Dv;
      const float* yn = y + n * Tq * Dv;
      const float* lsen = lse + n * Tq;
      float* dqn = dq + n * Tq * Dk;
      float* dkn = dk + n * Tk * Dk;
      float* dvn = dv + n * Tk * Dv;
      const float* add = mask.additive ? mask.additive + (n / per_mask) * Tq * Tk : nullptr;
      std::fill(dqn, dqn + Tq * Dk, 0.0f);
      std::fill(dkn, dkn + Tk * Dk, 0.0f);
      std::fill(dvn, dvn + Tk * Dv, 0.0f);
      for (int64_t i = 0; i < Tq; ++i) {  // delta_i = sum_d dy[i, d] y[i, d]
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (int64_t d = 0; d < Dv; ++d) dot += dyn[i * Dv + d] * yn[i * Dv + d];
        delta[i] = dot;
      }
      for (int64_t i0 = 0; i0 < Tq; i0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, Tq - i0);
        const int64_t limit = key_limit(mask.causal, i0, rows, Tq, Tk);
        for (int64_t j0 = 0; j0 < limit; j0 += kKeyBlock) {
          const int64_t cols = std::min(kKeyBlock, limit - j0);
          matmul(qn + i0 * Dk, kn + j0 * Dk, P, rows, cols, Dk, false, true, scale);
          mask_tile(P, add, mask.causal, i0, rows, j0, cols, Tq, Tk);
          for (int64_t r = 0; r < rows; ++r) {  // P = exp(S - lse), 0 where masked
            float* p = P + r * cols;
            const float L = lsen[i0 + r];
            if (L == kNegInf) {
              std::fill(p, p + cols, 0.0f);
              continue;
            }
#pragma omp simd
            for (int64_t c = 0; c < cols; ++c) p[c] = exp_simd(p[c] - L);
          }
          if (drop) {  // dv[j0.., :] += (P keep)^T dy[i0.., :], in dP for now
            draw_keep_tile(keep, n, i0, rows, j0, cols, Tq, Tk, dropout_p, dropout_key);
            for (int64_t e = 0; e < rows * cols; ++e) dP[e] = P[e] * keep[e];
            matmul(dP, dyn + i0 * Dv, dvn + j0 * Dv, cols, Dv, rows, true, false, 1.0f, 1.0f);
          } else {  // dv[j0.., :] += P^T dy[i0.., :]
            matmul(P, dyn + i0 * Dv, dvn + j0 * Dv, cols, Dv, rows, true, false, 1.0f, 1.0f);
          }
          // dP = (dy[i0.., :] v[j0.., :]^T) keep, then dS = P * (dP - delta) in place
          matmul(dyn + i0 * Dv, vn + j0 * Dv, dP, rows, cols, Dv, false, true);
          if (drop) multiply_tile(dP, keep, rows * cols);
          for (int64_t r = 0; r < rows; ++r) {
            float* d = dP + r * cols;
            const float* p = P + r * cols;
            const float dl = delta[i0 + r];
#pragma omp simd
            for (int64_t c = 0; c < cols; ++c) d[c] = p[c] * (d[c] - dl);
          }
          matmul(dP, kn + j0 * Dk, dqn + i0 * Dk, rows, Dk, cols, false, false, scale, 1.0f);
          matmul(dP, qn + i0 * Dk, dkn + j0 * Dk, cols, Dk, rows, true, false, scale, 1.0f);
        }
      }
    }
  }
}

}  // namespace tinylm::ops
