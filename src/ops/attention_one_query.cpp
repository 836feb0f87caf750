// Attention for one query: scores 8 keys at a time (8 independent dot products), the row
// softmax, then y as a sum of value rows weighted by A, 64 outputs at a time.
#include "ops/attention_one_query.h"

#include <algorithm>

#include "ops/lanes.h"
#include "ops/softmax.h"

namespace tinylm::ops {
namespace {

using namespace lanes;
constexpr int kKeys = 8;  // keys scored together: independent sums keep the FMAs busy

// A[t] = scale * q . k[t] for the NK keys from t0.
template <int NK>
void scores(const float* q, const float* k, float* A, int64_t t0, int64_t Dk, float scale) {
  Lanes acc[NK] = {};
  int64_t d = 0;
  for (; d + kLanes <= Dk; d += kLanes) {
    Lanes qv = load(q + d);
    in_register(qv);
    for (int j = 0; j < NK; ++j) acc[j] += qv * load(k + (t0 + j) * Dk + d);
  }
  if (d < Dk) {  // a zero-padded last step
    const Lanes qv = load(q + d, Dk - d);
    for (int j = 0; j < NK; ++j) acc[j] += qv * load(k + (t0 + j) * Dk + d, Dk - d);
  }
  for (int j = 0; j < NK; ++j) A[t0 + j] = sum_lanes(acc[j]) * scale;
}

// y[d0 .. d0 + NV * 8) = sum over t of A[t] v[t, d0 ..] (the last vector holds `last`
// lanes, 1..8).
template <int NV>
void weighted_sum(const float* A, const float* v, float* y, int64_t Tk, int64_t Dv, int64_t d0,
                  int64_t last) {
  Lanes acc[NV] = {};
  for (int64_t t = 0; t < Tk; ++t) {
    const Lanes a = broadcast(A[t]);
    const float* row = v + t * Dv + d0;
    for (int c = 0; c + 1 < NV; ++c) acc[c] += a * load(row + c * kLanes);
    const float* tail = row + (NV - 1) * kLanes;
    acc[NV - 1] += a * (last == kLanes ? load(tail) : load(tail, last));
  }
  for (int c = 0; c + 1 < NV; ++c) store(y + d0 + c * kLanes, acc[c]);
  store(y + d0 + (NV - 1) * kLanes, acc[NV - 1], last);
}

}  // namespace

void attention_one_query(const float* q, const float* k, const float* v, float* y, float* A,
                         int64_t Tk, int64_t Dk, int64_t Dv, float scale, const float* additive) {
  int64_t t = 0;
  for (; t + kKeys <= Tk; t += kKeys) scores<kKeys>(q, k, A, t, Dk, scale);
  for (; t < Tk; ++t) scores<1>(q, k, A, t, Dk, scale);
  if (additive)
    for (int64_t j = 0; j < Tk; ++j) A[j] += additive[j];
  softmax_row(A, A, Tk);
  constexpr int64_t kWide = 8 * kLanes;  // outputs per pass over A and v
  int64_t d = 0;
  for (; d + kWide <= Dv; d += kWide) weighted_sum<8>(A, v, y, Tk, Dv, d, kLanes);
  for (; d < Dv; d += kLanes) weighted_sum<1>(A, v, y, Tk, Dv, d, std::min(kLanes, Dv - d));
}

}  // namespace tinylm::ops
