// Scaled dot-product attention, reference version (naive loops, double sums). Per set n:
//   q [Tq, Dk], k [Tk, Dk], v [Tk, Dv]
//   S[i,j] = scale * sum_c q[i,c] k[j,c] + additive[i,j], or -inf where causality
//            forbids it (j > i + Tk - Tq)
//   A[i,j] = exp(S[i,j] - max_j S) / sum_j exp(...)   (a row of -inf gives zeros)
//   A'[i,j] = A[i,j] * drop_mask[i,j]                  (drop_mask: from the caller's key;
//            entry e = (n Tq + i) Tk + j is kept iff counter_uniform(key, e) >= p,
//            value 1/(1-p) or 0)
//   y[i,d] = sum_j A'[i,j] v[j,d]
// Backward:
//   dv[j,d] = sum_i A'[i,j] dy[i,d]
//   dA[i,j] = drop_mask[i,j] * sum_d dy[i,d] v[j,d]
//   dS[i,j] = A[i,j] (dA[i,j] - sum_l dA[i,l] A[i,l])
//   dq[i,c] = scale * sum_j dS[i,j] k[j,c] ;  dk[j,c] = scale * sum_i dS[i,j] q[i,c]
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/attention.h"
#include "ops/dropout.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace tinylm::ops::ref {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// S [Tk]: the scores of query row i of set n, masked (-inf where not allowed).
void row_scores(const float* q, const float* k, const AttentionShape& s, float scale,
                const AttentionMask& mask, int64_t n, int64_t i, double* S) {
  const int64_t Tq = s.Tq, Tk = s.Tk, Dk = s.Dk;
  const int64_t M = mask.additive ? mask.additive_sets : 1;
  const float* add = mask.additive ? mask.additive + (n / (s.N / M)) * Tq * Tk : nullptr;
  for (int64_t j = 0; j < Tk; ++j) {
    double dot = 0.0;
    for (int64_t c = 0; c < Dk; ++c)
      dot += static_cast<double>(q[(n * Tq + i) * Dk + c]) * k[(n * Tk + j) * Dk + c];
    S[j] = dot * scale;
    if (add) S[j] += add[i * Tk + j];
    if (mask.causal && j > i + (Tk - Tq)) S[j] = kNegInf;
  }
}

}  // namespace

void attention_forward(const float* q, const float* k, const float* v, float* y, float* att,
                       const AttentionShape& s, float scale, const AttentionMask& mask,
                       float dropout_p, float* drop_mask, uint64_t key) {
  const int64_t N = s.N, Tq = s.Tq, Tk = s.Tk, Dv = s.Dv;
  const int64_t M = mask.additive ? mask.additive_sets : 1;
  require(M >= 1 && N % M == 0, "attention: additive mask has " + std::to_string(M) +
                                    " sets, which does not divide N = " + std::to_string(N));
  require(dropout_p >= 0.0f && dropout_p <= 1.0f,
          "attention: dropout probability " + std::to_string(dropout_p) + " is outside [0, 1]");
  require(dropout_p == 0.0f || drop_mask, "attention: dropout needs a mask buffer");

  std::vector<double> S(Tk);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t i = 0; i < Tq; ++i) {
      row_scores(q, k, s, scale, mask, n, i, S.data());
      // softmax (a row with no allowed key gets zero weights)
      double mx = kNegInf;
      for (int64_t j = 0; j < Tk; ++j) mx = std::max(mx, S[j]);
      float* A = att + (n * Tq + i) * Tk;
      if (mx == kNegInf) {
        for (int64_t j = 0; j < Tk; ++j) A[j] = 0.0f;
      } else {
        double sum = 0.0;
        for (int64_t j = 0; j < Tk; ++j) sum += std::exp(S[j] - mx);
        for (int64_t j = 0; j < Tk; ++j) A[j] = static_cast<float>(std::exp(S[j] - mx) / sum);
      }
      // dropout on the weights (p == 0: a given mask buffer is filled with 1)
      float* dm = drop_mask ? drop_mask + (n * Tq + i) * Tk : nullptr;
      if (dm) {
        for (int64_t j = 0; j < Tk; ++j) {
          const auto e = static_cast<uint64_t>((n * Tq + i) * Tk + j);
          const bool keep = dropout_p == 0.0f || counter_uniform(key, e) >= dropout_p;
          dm[j] = keep ? 1.0f / (1.0f - dropout_p) : 0.0f;
        }
      }
      // y = A' v
      for (int64_t d = 0; d < Dv; ++d) {
        double acc = 0.0;
        for (int64_t j = 0; j < Tk; ++j) {
          const double w = dm ? A[j] * dm[j] : A[j];
          acc += w * v[(n * Tk + j) * Dv + d];
        }
        y[(n * Tq + i) * Dv + d] = static_cast<float>(acc);
      }
    }
  }
}

void attention_backward(const float* dy, const float* q, const float* k, const float* v,
                        const float* att, const float* drop_mask, float* dq, float* dk, float* dv,
                        const AttentionShape& s, float scale) {
  const int64_t N = s.N, Tq = s.Tq, Tk = s.Tk, Dk = s.Dk, Dv = s.Dv;
  std::vector<double> dS(Tq * Tk);
  for (int64_t n = 0; n < N; ++n) {
    const float* A = att + n * Tq * Tk;
    const float* dm = drop_mask ? drop_mask + n * Tq * Tk : nullptr;
    auto dropped = [&](int64_t i, int64_t j) {  // A'[i, j]
      return dm ? static_cast<double>(A[i * Tk + j]) * dm[i * Tk + j] : A[i * Tk + j];
    };
    // dv = A'^T dy
    for (int64_t j = 0; j < Tk; ++j) {
      for (int64_t d = 0; d < Dv; ++d) {
        double acc = 0.0;
        for (int64_t i = 0; i < Tq; ++i) acc += dropped(i, j) * dy[(n * Tq + i) * Dv + d];
        dv[(n * Tk + j) * Dv + d] = static_cast<float>(acc);
      }
    }
    // dA = (dy v^T) * drop_mask, then dS = A * (dA - rowsum(dA * A))
    for (int64_t i = 0; i < Tq; ++i) {
      for (int64_t j = 0; j < Tk; ++j) {
        double acc = 0.0;
        for (int64_t d = 0; d < Dv; ++d)
          acc += static_cast<double>(dy[(n * Tq + i) * Dv + d]) * v[(n * Tk + j) * Dv + d];
        dS[i * Tk + j] = dm ? acc * dm[i * Tk + j] : acc;
      }
      double dot = 0.0;
      for (int64_t j = 0; j < Tk; ++j) dot += dS[i * Tk + j] * A[i * Tk + j];
      for (int64_t j = 0; j < Tk; ++j) dS[i * Tk + j] = A[i * Tk + j] * (dS[i * Tk + j] - dot);
    }
    // dq = dS k * scale
    for (int64_t i = 0; i < Tq; ++i) {
      for (int64_t c = 0; c < Dk; ++c) {
        double acc = 0.0;
        for (int64_t j = 0; j < Tk; ++j) acc += dS[i * Tk + j] * k[(n * Tk + j) * Dk + c];
        dq[(n * Tq + i) * Dk + c] = static_cast<float>(acc * scale);
      }
    }
    // dk = dS^T q * scale
    for (int64_t j = 0; j < Tk; ++j) {
      for (int64_t c = 0; c < Dk; ++c) {
        double acc = 0.0;
        for (int64_t i = 0; i < Tq; ++i) acc += dS[i * Tk + j] * q[(n * Tq + i) * Dk + c];
        dk[(n * Tk + j) * Dk + c] = static_cast<float>(acc * scale);
      }
    }
  }
}

void attention_forward_tiled(const float* q, const float* k, const float* v, float* y, float* lse,
                             const AttentionShape& s, float scale, const AttentionMask& mask,
                             float dropout_p, uint64_t dropout_key) {
  std::vector<float> att(s.N * s.Tq * s.Tk), drop(att.size());
  ref::attention_forward(q, k, v, y, att.data(), s, scale, mask, dropout_p, drop.data(),
                         dropout_key);
  std::vector<double> S(s.Tk);
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t i = 0; i < s.Tq; ++i) {
      row_scores(q, k, s, scale, mask, n, i, S.data());
      double mx = kNegInf, sum = 0.0;
      for (double x : S) mx = std::max(mx, x);
      for (double x : S) sum += mx == kNegInf ? 0.0 : std::exp(x - mx);
      lse[n * s.Tq + i] = static_cast<float>(mx == kNegInf ? kNegInf : mx + std::log(sum));
    }
}

void attention_backward_tiled(const float* dy, const float* q, const float* k, const float* v,
                              const float* /*y*/, const float* lse, float* dq, float* dk, float* dv,
                              const AttentionShape& s, float scale, const AttentionMask& mask,
                              float dropout_p, uint64_t dropout_key) {
  std::vector<float> att(s.N * s.Tq * s.Tk), drop(att.size());
  if (dropout_p > 0.0f) {  // the mask forward drew: dropout of ones
    const std::vector<float> ones(att.size(), 1.0f);
    std::vector<float> dropped(att.size());
    ref::dropout_forward(ones.data(), dropped.data(), drop.data(), static_cast<int64_t>(att.size()),
                         dropout_p, dropout_key);
  }
  std::vector<double> S(s.Tk);
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t i = 0; i < s.Tq; ++i) {
      row_scores(q, k, s, scale, mask, n, i, S.data());
      const double z = lse[n * s.Tq + i];
      float* A = att.data() + (n * s.Tq + i) * s.Tk;
      for (int64_t j = 0; j < s.Tk; ++j)
        A[j] = z == kNegInf ? 0.0f : static_cast<float>(std::exp(S[j] - z));
    }
  ref::attention_backward(dy, q, k, v, att.data(), dropout_p > 0.0f ? drop.data() : nullptr, dq, dk,
                          dv, s, scale);
}

}  // namespace tinylm::ops::ref
