// Packed linear layer, fast version: a GEMM micro-kernel on the packed panels. A tile is
// kTileRows input rows x one panel (kPackedPanel outputs); its sums stay in registers
// for one block of kBlockK steps of C:
//   for k in the block:  w = P[panel, k, 0 .. kPackedPanel)    (kVecs vector loads)
//                        acc[i] += x[i, k] * w   for each row i (one broadcast, kVecs FMAs)
// AVX-512 builds: 12 rows x 2 vectors of 16 = 24 accumulators of the 32 registers;
// otherwise 6 rows x 2 vectors of 8 = 12 of the 16.
// Work items are (panel, group of up to kGroupRows rows), panel-major. An item
// walks C block by block and runs each of its row tiles over the block, so the block
// (kBlockK x kPackedPanel floats, 64 KB on AVX-512) is read from memory once and then
// from the caches; between blocks a tile's sums wait in a small buffer (storing a float
// and loading it back changes no bit). While it works on one block, an item prefetches
// the next one (its own next block, else the next item's first) into L2, a few lines per
// k step, so the weights stream in behind the arithmetic rather than in front of it
// (docs/performance.md section 16).
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
constexpr int64_t kBlockK = 512;    // k steps per block: 64 KB of panel on AVX-512 builds
constexpr int64_t kGroupRows = 72;  // rows per item: 6 tiles on AVX-512 builds, 12 otherwise
static_assert(kGroupRows % kTileRows == 0, "a group is whole tiles");
constexpr int64_t kLineBytes = 64;  // a cache line, the unit of prefetching

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

// Cache lines to prefetch into L2 during one tile: lines [0, count) from `at`, one per
// k step (at most as many as the tile has steps).
struct Prefetch {
  const char* at;
  int64_t count;
};

// sums [R, kPackedPanel] += x[0 .. R) [k0, k1) . panel[k0, k1); they start at zero when
// k0 == 0. x rows are C apart.
template <int R>
void tile(const float* x, int64_t C, const float* panel, int64_t k0, int64_t k1, float* sums,
          Prefetch next) {
  Vec acc[R][kVecs];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < kVecs; ++j) {
      if (k0 == 0)
        acc[i][j] = Vec{};
      else
        std::memcpy(&acc[i][j], sums + i * kPackedPanel + j * kWidth, sizeof(Vec));
    }
  for (int64_t k = k0; k < k1; ++k) {
    if (k - k0 < next.count) __builtin_prefetch(next.at + (k - k0) * kLineBytes, 0, 2);
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
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < kVecs; ++j)
      std::memcpy(sums + i * kPackedPanel + j * kWidth, &acc[i][j], sizeof(Vec));
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, float*, Prefetch);
// kTiles[r - 1]: the tile of r rows
template <size_t... R>
constexpr std::array<TileFn, sizeof...(R)> tiles_of(std::index_sequence<R...>) {
  return {&tile<static_cast<int>(R) + 1>...};
}
constexpr auto kTiles = tiles_of(std::make_index_sequence<kTileRows>{});

// One call's shapes: x [N, C], P [panels, C, kPackedPanel], b [OC] or null, y [N, OC].
struct Product {
  const float* x;
  const float* P;
  const float* b;
  float* y;
  int64_t N, C, OC, panels, groups;

  const float* panel(int64_t p) const { return P + p * C * kPackedPanel; }
};

// The weights an item reads after its block at k0: its own next block, else the next
// item's first (as [address, cache lines]); none after the last item.
Prefetch block_after(const Product& m, int64_t item, int64_t k0) {
  const int64_t p = item / m.groups, k1 = k0 + kBlockK;
  const float* at = nullptr;
  int64_t steps = 0;
  if (k1 < m.C) {
    at = m.panel(p) + k1 * kPackedPanel, steps = std::min(kBlockK, m.C - k1);
  } else if (item + 1 < m.panels * m.groups) {
    at = m.panel((item + 1) / m.groups), steps = std::min(kBlockK, m.C);
  }
  const int64_t bytes = steps * kPackedPanel * static_cast<int64_t>(sizeof(float));
  return {reinterpret_cast<const char*>(at), (bytes + kLineBytes - 1) / kLineBytes};
}

// y[rows, cols) of one item = its sums + b, cols < kPackedPanel only in the last panel.
void write_item(const Product& m, int64_t p, int64_t r0, int64_t rows, const float* sums) {
  const int64_t o0 = p * kPackedPanel, cols = std::min(kPackedPanel, m.OC - o0);
  for (int64_t i = 0; i < rows; ++i) {
    float* row = m.y + (r0 + i) * m.OC + o0;
    for (int64_t c = 0; c < cols; ++c)
      row[c] = sums[i * kPackedPanel + c] + (m.b ? m.b[o0 + c] : 0.0f);
  }
}

void run_item(const Product& m, int64_t item) {
  const int64_t p = item / m.groups, r0 = item % m.groups * kGroupRows;
  const int64_t rows = std::min(kGroupRows, m.N - r0);
  const int64_t tiles = (rows + kTileRows - 1) / kTileRows;
  alignas(64) float sums[kGroupRows * kPackedPanel];
  for (int64_t k0 = 0; k0 == 0 || k0 < m.C; k0 += kBlockK) {  // once when C == 0: sums of 0
    const int64_t k1 = std::min(m.C, k0 + kBlockK);
    const Prefetch next = block_after(m, item, k0);
    const int64_t per_tile = (next.count + tiles - 1) / tiles;  // the block's lines, shared out
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t r = t * kTileRows, tile_rows = std::min<int64_t>(kTileRows, rows - r);
      const Prefetch part{next.at + t * per_tile * kLineBytes,
                          std::clamp<int64_t>(next.count - t * per_tile, 0, per_tile)};
      kTiles[tile_rows - 1](m.x + (r0 + r) * m.C, m.C, m.panel(p), k0, k1, sums + r * kPackedPanel,
                            part);
    }
  }
  write_item(m, p, r0, rows, sums);
}

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
  const Product m{x,
                  P,
                  b,
                  y,
                  N,
                  C,
                  OC,
                  (OC + kPackedPanel - 1) / kPackedPanel,
                  (N + kGroupRows - 1) / kGroupRows};
  // panel-major items: with static chunks a thread's consecutive items share a panel
#pragma omp parallel for schedule(static) if (N * C * OC >= (1 << 18))
  for (int64_t item = 0; item < m.panels * m.groups; ++item) run_item(m, item);
}

}  // namespace tinylm::ops
