// The linear layer for a few rows (decoding: one row per sequence), each output a dot
// product summed in one fixed order, so that a row's result does not depend on the other
// rows, on how many there are, or on the thread count:
//   y[n, o] = lanes(sum over k-steps of x[n, k..k+7] * W[o, k..k+7]) + b[o]
// with 8 float lanes per step (a zero-padded last step) and a fixed tree over the lanes.
// Blocks of 4 outputs x 3 rows: each block of W is read from memory once for all rows,
// the way one decoding step serves every sequence in the batch, while the block two ahead
// is fetched into the cache (one step's products take about as long as its weights take
// to arrive, so the two overlap only when the fetching runs all along).
// One row alone (decoding one sequence) sums in the same order but reads W differently:
// each thread streams its part of W front to back, one output after another, left to the
// hardware's prefetcher; one stream arrives faster than four W rows side by side, and
// faster with no fetching of our own (docs/performance.md section 19).
#include <algorithm>

#include "ops/lanes.h"
#include "ops/matmul.h"

namespace tinylm::ops {
namespace {

using namespace lanes;
constexpr int kOutputs = 4;  // outputs per block (W rows read together)
constexpr int kRows = 3;     // x rows per block: 12 accumulators; with the 3 x vectors and
                             // one W vector at a time (in_register), 16 registers

// acc[i][j] += x[i, k .. k + n) . W[o0 + j, k .. k + n) for one step of n lanes (n < 8:
// zero-padded). Always inlined, so that the accumulators stay in registers.
template <int NR>
[[gnu::always_inline]] inline void step(const float* x, const float* const* w, int64_t C, int64_t k,
                                        int64_t n, Lanes (&acc)[NR][kOutputs]) {
  Lanes xv[NR];
  for (int i = 0; i < NR; ++i) {
    Lanes v = n == kLanes ? load(x + i * C + k) : load(x + i * C + k, n);
    in_register(v);  // (on a local: on xv[i] it would keep the arrays in memory)
    xv[i] = v;
  }
  for (int j = 0; j < kOutputs; ++j) {
    Lanes wv = n == kLanes ? load(w[j] + k) : load(w[j] + k, n);
    in_register(wv);
    for (int i = 0; i < NR; ++i) acc[i][j] = multiply_add(acc[i][j], xv[i], wv);
  }
}

// y[i, o0 + j] for i < NR rows, j < outputs (<= kOutputs).
// next: the W rows of the block two ahead, fetched into the cache meanwhile (with Fetch).
template <int NR, bool Fetch>
void block(const float* x, const float* W, const float* b, float* y, int64_t C, int64_t OC,
           int64_t o0, int outputs, const float* next) {
  const float* w[kOutputs];
  for (int j = 0; j < kOutputs; ++j) w[j] = W + (o0 + std::min(j, outputs - 1)) * C;
  Lanes acc[NR][kOutputs] = {};
  int64_t k = 0;
  for (; k + kLanes <= C; k += kLanes) {  // full steps: plain vector loads
    if (Fetch && k % 16 == 0)             // one cache line of each next row per 2 steps
      for (int j = 0; j < kOutputs; ++j) __builtin_prefetch(next + j * C + k);
    step<NR>(x, w, C, k, kLanes, acc);
  }
  if (k < C) step<NR>(x, w, C, k, C - k, acc);
  for (int i = 0; i < NR; ++i)
    for (int j = 0; j < outputs; ++j)
      y[i * OC + o0 + j] = sum_lanes(acc[i][j]) + (b ? b[o0 + j] : 0.0f);
}

// All N rows for outputs o0 .. o0 + kOutputs - 1.
void output_block(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                  int64_t OC, int64_t o0) {
  const int outputs = static_cast<int>(std::min<int64_t>(kOutputs, OC - o0));
  // Every group of rows fetches the block two ahead (when there is one) while it
  // computes: the first group finds this block in the cache, the others in L1.
  const bool more = o0 + 3 * kOutputs <= OC;
  const float* next = more ? W + (o0 + 2 * kOutputs) * C : nullptr;
  const auto rows = [&]<int NR>(int64_t n) {
    if (more)
      block<NR, true>(x + n * C, W, b, y + n * OC, C, OC, o0, outputs, next);
    else
      block<NR, false>(x + n * C, W, b, y + n * OC, C, OC, o0, outputs, next);
  };
  int64_t n = 0;
  for (; n + kRows <= N; n += kRows) rows.template operator()<kRows>(n);
  if (N - n == 2) rows.template operator()<2>(n);
  if (N - n == 1) rows.template operator()<1>(n);
}

// acc += x[k .. k + n) * w[k .. k + n) (n < 8: zero-padded), rounded as the block's steps.
[[gnu::always_inline]] inline void one_step(const float* x, const float* w, int64_t k, int64_t n,
                                            Lanes& acc) {
  Lanes xv = n == kLanes ? load(x + k) : load(x + k, n);
  in_register(xv);
  Lanes wv = n == kLanes ? load(w + k) : load(w + k, n);
  in_register(wv);
  acc = multiply_add(acc, xv, wv);
}

// y[o] for one row x: the dot product of x and W row o, 4 steps per turn.
void one_output(const float* x, const float* W, const float* b, float* y, int64_t C, int64_t o) {
  const float* w = W + o * C;
  Lanes acc = {};
  int64_t k = 0;
  for (; k + 4 * kLanes <= C; k += 4 * kLanes)
    for (int s = 0; s < 4; ++s) one_step(x, w, k + s * kLanes, kLanes, acc);
  for (; k < C; k += kLanes) one_step(x, w, k, std::min(kLanes, C - k), acc);
  y[o] = sum_lanes(acc) + (b ? b[o] : 0.0f);
}

}  // namespace

void linear_forward_rows(const float* x, const float* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC) {
  if (N == 1) {
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
    for (int64_t o = 0; o < OC; ++o) one_output(x, W, b, y, C, o);
    return;
  }
  const int64_t blocks = (OC + kOutputs - 1) / kOutputs;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t blk = 0; blk < blocks; ++blk) output_block(x, W, b, y, N, C, OC, blk * kOutputs);
}

}  // namespace tinylm::ops
