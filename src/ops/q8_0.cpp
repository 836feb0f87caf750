// 8-bit weights, fast version (see q8_0.h). The integer product of one block of 32 is
// 8 int32 lanes of 4 products each. With AVX512-VNNI (and VL) that is one vpdpbusd on
// 256-bit registers: it multiplies unsigned by signed bytes, so x's magnitudes |q_x| go
// in as the unsigned side and the weights, given x's signs (vpsignb), as the signed side:
// |q_x| * (q_w * sign q_x) = q_x * q_w. With AVX2 alone, vpmaddubsw and vpmaddwd do the
// same in two steps; elsewhere a portable loop computes the same lanes. All three then
// scale and sum them alike. The scales d_w * d_x of 8 blocks are made at once (8 halves
// widened by one instruction, one multiply) and broadcast block by block.
#include "ops/q8_0.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/lanes.h"
#include "util/float16.h"

#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#include <immintrin.h>
#define TINYLM_Q8_VNNI 1
#elif defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define TINYLM_Q8_AVX2 1
#endif

namespace tinylm::ops {
namespace {

constexpr int kScales = 8;   // block scales made at once
constexpr int kOutputs = 4;  // W rows read together: x's blocks are loaded once for them

// x quantised, row by row: values q [N, C], magnitudes |q| [N, C], block scales
// d [N, padded] (padded to whole groups of kScales with zeros).
struct QuantisedRows {
  std::vector<int8_t> q;
  std::vector<uint8_t> a;
  std::vector<float> d;
  int64_t padded = 0;
};

void quantize_rows(const float* x, int64_t N, int64_t C, QuantisedRows& out) {
  const int64_t blocks = C / kQ8Block;
  out.padded = (blocks + kScales - 1) / kScales * kScales;
  out.q.resize(static_cast<size_t>(N * C));
  out.a.resize(static_cast<size_t>(N * C));
  out.d.assign(static_cast<size_t>(N * out.padded), 0.0f);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < blocks; ++k) {
      const int64_t at = n * C + k * kQ8Block;
      float amax = 0.0f;
      for (int64_t j = 0; j < kQ8Block; ++j) amax = std::max(amax, std::fabs(x[at + j]));
      const float d = amax / 127.0f, inverse = d != 0.0f ? 1.0f / d : 0.0f;
      out.d[n * out.padded + k] = d;
      for (int64_t j = 0; j < kQ8Block; ++j) {
        out.q[at + j] = static_cast<int8_t>(std::round(x[at + j] * inverse));
        out.a[at + j] = static_cast<uint8_t>(std::abs(out.q[at + j]));
      }
    }
}

using Acc = lanes::Lanes;  // 8 float lanes, summed by lanes::sum_lanes's fixed tree
using lanes::sum_lanes;

#if defined(TINYLM_Q8_VNNI) || defined(TINYLM_Q8_AVX2)
// acc[l] += (sum of the 4 products of lane l) * scale, for the 8 lanes of one block.
inline Acc block_step(const int8_t* xq, const uint8_t* xa, const int8_t* wq, const float* scale,
                      Acc acc) {
  const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wq));
  const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq));
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xa));
#ifdef TINYLM_Q8_VNNI
  const __m256i sums = _mm256_dpbusd_epi32(_mm256_setzero_si256(), a, _mm256_sign_epi8(w, q));
#else
  // pairs of products as int16 (at most 2 * 127 * 127: no saturation), then pairs of
  // those as int32
  const __m256i pairs = _mm256_maddubs_epi16(a, _mm256_sign_epi8(w, q));
  const __m256i sums = _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
#endif
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), _mm256_broadcast_ss(scale), acc);
}

// out[i] = d_w[i] widened * d_x[i], for kScales blocks.
inline void make_scales(const uint16_t* dw, const float* dx, float* out) {
  const __m256 w = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(dw)));
  _mm256_storeu_ps(out, _mm256_mul_ps(w, _mm256_loadu_ps(dx)));
}

#else
inline Acc block_step(const int8_t* xq, const uint8_t*, const int8_t* wq, const float* scale,
                      Acc acc) {
  for (int l = 0; l < 8; ++l) {
    int32_t sum = 0;
    for (int k = 4 * l; k < 4 * l + 4; ++k) sum += int32_t{xq[k]} * int32_t{wq[k]};
    acc[l] = std::fma(static_cast<float>(sum), *scale, acc[l]);
  }
  return acc;
}

inline void make_scales(const uint16_t* dw, const float* dx, float* out) {
  for (int i = 0; i < kScales; ++i) out[i] = half_to_float(dw[i]) * dx[i];
}

#endif

// y[n, o0 + j] for every row n and j < outputs (<= kOutputs). The group's W rows come
// from memory for the first row and from the cache for the others.
void output_group(const QuantisedRows& xs, const int8_t* q, const uint16_t* d, const float* b,
                  float* y, int64_t N, int64_t C, int64_t OC, int64_t o0) {
  const int64_t blocks = C / kQ8Block;
  const int outputs = static_cast<int>(std::min<int64_t>(kOutputs, OC - o0));
  const int8_t* wq[kOutputs];
  const uint16_t* wd[kOutputs];
  for (int j = 0; j < kOutputs; ++j) {
    const int64_t o = o0 + std::min(j, outputs - 1);
    wq[j] = q + o * C;
    wd[j] = d + o * blocks;
  }
  // The next group's rows follow these in memory; the first row's pass fetches them into
  // the cache as it goes (rows of 32 blocks or fewer are too short for the hardware
  // prefetcher to ramp up: without this, half the bandwidth is lost).
  const int8_t* next_group = o0 + kOutputs < OC ? q + (o0 + kOutputs) * C : nullptr;
  for (int64_t n = 0; n < N; ++n) {
    const int8_t* next = n == 0 ? next_group : nullptr;
    const int8_t* xq = xs.q.data() + n * C;
    const uint8_t* xa = xs.a.data() + n * C;
    const float* xd = xs.d.data() + n * xs.padded;
    Acc acc[kOutputs] = {};
    for (int64_t k0 = 0; k0 < blocks; k0 += kScales) {
      const int64_t count = std::min<int64_t>(kScales, blocks - k0);
      float scale[kOutputs][kScales];
      for (int j = 0; j < kOutputs; ++j) {
        if (count == kScales) {
          make_scales(wd[j] + k0, xd + k0, scale[j]);
        } else {  // the last blocks of a row: no reading past its scales
          uint16_t dw[kScales] = {};
          std::copy(wd[j] + k0, wd[j] + k0 + count, dw);
          make_scales(dw, xd + k0, scale[j]);
        }
      }
      for (int64_t k = 0; k < count; ++k) {
        const int64_t at = (k0 + k) * kQ8Block;
        if (next) {  // 128 bytes of the next group's 4 * C per block step: all of it
          __builtin_prefetch(next + 4 * at);
          __builtin_prefetch(next + 4 * at + 64);
        }
#pragma GCC unroll 4
        for (int j = 0; j < kOutputs; ++j)
          acc[j] = block_step(xq + at, xa + at, wq[j] + at, &scale[j][k], acc[j]);
      }
    }
    for (int j = 0; j < outputs; ++j)
      y[n * OC + o0 + j] = sum_lanes(acc[j]) + (b ? b[o0 + j] : 0.0f);
  }
}

}  // namespace

void quantize_q8_0(const float* w, int8_t* q, uint16_t* d, int64_t OC, int64_t C) {
  const int64_t blocks = OC * C / kQ8Block;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t i = 0; i < blocks; ++i) {
    BlockQ8_0 block;
    quantize_q8_0_block(w + i * kQ8Block, &block);
    d[i] = block.d;
    std::copy(block.q, block.q + kQ8Block, q + i * kQ8Block);
  }
}

void linear_forward_q8_0(const float* x, const int8_t* q, const uint16_t* d, const float* b,
                         float* y, int64_t N, int64_t C, int64_t OC) {
  thread_local QuantisedRows xs;  // x quantised, read by every thread below
  quantize_rows(x, N, C, xs);
  const QuantisedRows& rows = xs;
  const int64_t groups = (OC + kOutputs - 1) / kOutputs;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t g = 0; g < groups; ++g) output_group(rows, q, d, b, y, N, C, OC, g * kOutputs);
}

}  // namespace tinylm::ops
