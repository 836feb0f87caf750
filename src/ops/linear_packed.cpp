// Packed linear layer, fast version: a GEMM micro-kernel on the packed panels. A tile is
// kTileRows input rows x one panel (kPackedPanel outputs); its sums stay in registers
// for the whole of C:
//   for k:  w = P[panel, k, 0 .. kPackedPanel)           (kVecs vector loads)
//           acc[i] += x[i, k] * w   for each row i        (one broadcast, kVecs FMAs)
// AVX-512 builds: 12 rows x 2 vectors of 16 = 24 accumulators of the 32 registers;
// otherwise 6 rows x 2 vectors of 8 = 12 of the 16. The work is split into (panel, row
// tile) pairs, panel-major, so a thread runs a panel's row tiles one after another while
// the panel ([C, kPackedPanel]) stays in L2.
#include "ops/linear_packed.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#pragma GCC diagnostic ignored "-Wpsabi"  // vectors passed inside this file only

namespace tinylm::ops {
namespace {

#if defined(__AVX512F__)
typedef float Vec __attribute__((vector_size(64)));
constexpr int kTileRows = 12;
#else
typedef float Vec __attribute__((vector_size(32)));
constexpr int kTileRows = 6;
#endif
constexpr int kWidth = sizeof(Vec) / sizeof(float);
constexpr int kVecs = static_cast<int>(kPackedPanel) / kWidth;
static_assert(kVecs * kWidth == kPackedPanel, "a panel is whole vectors");

// Keeps v in a register (GCC may otherwise re-read a vector each product uses).
inline void in_register(Vec& v) {
#if defined(__AVX512F__)
  asm("" : "+v"(v));
#elif defined(__AVX__)
  asm("" : "+x"(v));
#else
  (void)v;
#endif
}

// y[i, 0 .. cols) for R rows (R <= kTileRows) of x and one panel; cols < kPackedPanel
// only in the last panel.
template <int R>
void tile(const float* x, const float* panel, const float* b, float* y, int64_t C, int64_t OC,
          int64_t cols) {
  Vec acc[R][kVecs] = {};
  for (int64_t k = 0; k < C; ++k) {
    Vec w[kVecs];
    for (int j = 0; j < kVecs; ++j) {
      std::memcpy(&w[j], panel + k * kPackedPanel + j * kWidth, sizeof(Vec));
      in_register(w[j]);
    }
    for (int i = 0; i < R; ++i) {
      const float xi = x[i * C + k];
      for (int j = 0; j < kVecs; ++j) acc[i][j] += xi * w[j];
    }
  }
  for (int i = 0; i < R; ++i) {
    float sums[kPackedPanel];
    std::memcpy(sums, acc[i], sizeof sums);
    float* row = y + i * OC;
    for (int64_t c = 0; c < cols; ++c) row[c] = sums[c] + (b ? b[c] : 0.0f);
  }
}

using TileFn = void (*)(const float*, const float*, const float*, float*, int64_t, int64_t,
                        int64_t);
// kTiles[r - 1]: the tile of r rows
template <size_t... R>
constexpr std::array<TileFn, sizeof...(R)> tiles_of(std::index_sequence<R...>) {
  return {&tile<static_cast<int>(R) + 1>...};
}
constexpr auto kTiles = tiles_of(std::make_index_sequence<kTileRows>{});

}  // namespace

void pack_linear(const float* W, float* P, int64_t OC, int64_t C) {
  const int64_t panels = (OC + kPackedPanel - 1) / kPackedPanel;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t p = 0; p < panels; ++p) {
    float* out = P + p * C * kPackedPanel;
    const int64_t cols = std::min(kPackedPanel, OC - p * kPackedPanel);
    for (int64_t k = 0; k < C; ++k) {
      for (int64_t j = 0; j < cols; ++j)
        out[k * kPackedPanel + j] = W[(p * kPackedPanel + j) * C + k];
      for (int64_t j = cols; j < kPackedPanel; ++j) out[k * kPackedPanel + j] = 0.0f;
    }
  }
}

void linear_forward_packed(const float* x, const float* P, const float* b, float* y, int64_t N,
                           int64_t C, int64_t OC) {
  const int64_t panels = (OC + kPackedPanel - 1) / kPackedPanel;
  const int64_t row_tiles = (N + kTileRows - 1) / kTileRows;
  // (panel, row tile) pairs, panel-major: a thread's consecutive tiles share a panel.
#pragma omp parallel for schedule(static) if (N * C * OC >= (1 << 18))
  for (int64_t item = 0; item < panels * row_tiles; ++item) {
    const int64_t p = item / row_tiles, r0 = item % row_tiles * kTileRows;
    const int64_t o0 = p * kPackedPanel;
    const int64_t rows = std::min<int64_t>(kTileRows, N - r0);
    kTiles[rows - 1](x + r0 * C, P + p * C * kPackedPanel, b ? b + o0 : nullptr, y + r0 * OC + o0,
                     C, OC, std::min(kPackedPanel, OC - o0));
  }
}

}  // namespace tinylm::ops
