// The linear layer for a few rows (decoding: one row per sequence), each output a dot
// product summed in one fixed order, so that a row's result does not depend on the other
// rows, on how many there are, or on the thread count:
//   y[n, o] = lanes(sum over k-steps of x[n, k..k+7] * W[o, k..k+7]) + b[o]
// with 8 float lanes per step (a zero-padded last step) and a fixed tree over the lanes.
// Blocks of 4 outputs x 3 rows: each block of W is read from memory once for all rows,
// the way one decoding step serves every sequence in the batch.
#include <algorithm>
#include <cstring>

#include "ops/matmul.h"

// The helpers below pass 8-lane vectors by value; they are internal to this file, so the
// ABI note GCC gives for such functions on builds without AVX (the sanitizer build) does
// not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tinylm::ops {
namespace {

// 8 float lanes: one AVX2 register (half of one on AVX-512). GCC's vector extension has
// the same arithmetic on any ISA, so the result does not depend on the instruction set.
typedef float Lanes __attribute__((vector_size(32)));
constexpr int64_t kLanes = 8;
constexpr int kOutputs = 4;  // outputs per block (W rows read together)
constexpr int kRows = 3;     // x rows per block: 12 accumulators, within 16 registers

Lanes load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

Lanes load(const float* p, int64_t n) {  // the first n lanes, the rest zero
  Lanes v = {};
  std::memcpy(&v, p, static_cast<size_t>(n) * sizeof(float));
  return v;
}

float sum_lanes(const Lanes& v) {  // a fixed tree
  return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

// y[i, o0 + j] for i < NR rows, j < outputs (<= kOutputs).
// next: the W rows of the following block, fetched into the cache meanwhile (with Fetch).
template <int NR, bool Fetch>
void block(const float* x, const float* W, const float* b, float* y, int64_t C, int64_t OC,
           int64_t o0, int outputs, const float* next) {
  const float* w[kOutputs];
  for (int j = 0; j < kOutputs; ++j) w[j] = W + (o0 + std::min(j, outputs - 1)) * C;
  Lanes acc[NR][kOutputs] = {};
  const auto step = [&](int64_t k, int64_t n) {  // lanes k .. k + n - 1 (n < 8: zero-padded)
    Lanes xv[NR];
    for (int i = 0; i < NR; ++i) xv[i] = n == kLanes ? load(x + i * C + k) : load(x + i * C + k, n);
    for (int j = 0; j < kOutputs; ++j) {
      const Lanes wv = n == kLanes ? load(w[j] + k) : load(w[j] + k, n);
      for (int i = 0; i < NR; ++i) acc[i][j] += xv[i] * wv;
    }
  };
  int64_t k = 0;
  for (; k + kLanes <= C; k += kLanes) {  // full steps: plain vector loads
    if (Fetch && k % 16 == 0)             // one cache line of each next row per 2 steps
      for (int j = 0; j < kOutputs; ++j) __builtin_prefetch(next + j * C + k);
    step(k, kLanes);
  }
  if (k < C) step(k, C - k);
  for (int i = 0; i < NR; ++i)
    for (int j = 0; j < outputs; ++j)
      y[i * OC + o0 + j] = sum_lanes(acc[i][j]) + (b ? b[o0 + j] : 0.0f);
}

// All N rows for outputs o0 .. o0 + kOutputs - 1.
void output_block(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                  int64_t OC, int64_t o0) {
  const int outputs = static_cast<int>(std::min<int64_t>(kOutputs, OC - o0));
  // The first rows stream this block's W from memory; while the others compute from the
  // cache, the next block is fetched (when this one is not the last).
  const bool more = o0 + 2 * kOutputs <= OC;
  const float* next = more ? W + (o0 + kOutputs) * C : nullptr;
  const auto rows = [&]<int NR>(int64_t n) {
    if (n > 0 && more)
      block<NR, true>(x + n * C, W, b, y + n * OC, C, OC, o0, outputs, next);
    else
      block<NR, false>(x + n * C, W, b, y + n * OC, C, OC, o0, outputs, next);
  };
  int64_t n = 0;
  for (; n + kRows <= N; n += kRows) rows.template operator()<kRows>(n);
  if (N - n == 2) rows.template operator()<2>(n);
  if (N - n == 1) rows.template operator()<1>(n);
}

}  // namespace

void linear_forward_rows(const float* x, const float* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC) {
  const int64_t blocks = (OC + kOutputs - 1) / kOutputs;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t blk = 0; blk < blocks; ++blk) output_block(x, W, b, y, N, C, OC, blk * kOutputs);
}

}  // namespace tinylm::ops
