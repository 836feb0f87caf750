// The machine's own ceilings, measured at the start of a benchmark so that every figure
// can be printed beside the fraction of the hardware it reaches (as llm.c prints MFU):
//   sgemm_peak_gflops(): the best of a few square fp32 products through ops::matmul
//                        (the GEMM tinylm itself uses), in GFLOP/s;
//   triad_bandwidth_gbs(): a STREAM-like triad a = b + s * c over arrays far larger than
//                        the caches, in GB/s (2 reads + 1 write of 4 bytes per element);
//   fma_peak_gflops():   the arithmetic ceiling: every thread runs 12 independent chains
//                        of vector multiply-adds (the build's widest vectors: 16 floats
//                        with AVX-512, else 8) on registers only, in GFLOP/s.
// Both use the current thread count (set_num_threads before calling).
#pragma once
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "ops/matmul.h"

namespace tinylm::bench {

inline double sgemm_peak_gflops(int64_t n = 2048, int repeats = 4) {
  std::vector<float> A(n * n), B(n * n), C(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    A[i] = static_cast<float>(i % 13) * 0.01f;
    B[i] = static_cast<float>(i % 7) * 0.02f;
  }
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    ops::matmul(A.data(), B.data(), C.data(), n, n, n);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * n * n * n / best / 1e9;
}

inline double triad_bandwidth_gbs(int64_t n = int64_t{1} << 24, int repeats = 6) {
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + 0.5f * c[i];
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 3.0 * sizeof(float) * n / best / 1e9;
}

#if defined(__AVX512F__)
typedef float PeakVec __attribute__((vector_size(64)));
#else
typedef float PeakVec __attribute__((vector_size(32)));
#endif

inline double fma_peak_gflops(int64_t steps = int64_t{1} << 26, int repeats = 3) {
  constexpr int kChains = 12, kWidth = sizeof(PeakVec) / sizeof(float);
  double best = 1e30;
  float sink = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    {
      PeakVec acc[kChains], mul = {}, add = {};
      mul += 0.999f;
      add += 1e-4f;
      for (int c = 0; c < kChains; ++c) acc[c] = mul * static_cast<float>(c);
      for (int64_t s = 0; s < steps; ++s) {
        for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * mul + add;
#if defined(__AVX512F__)
        asm("" : "+v"(mul));  // not a constant: the chains stay multiply-adds
#else
        asm("" : "+x"(mul));
#endif
      }
      for (int c = 0; c < kChains; ++c) sink += acc[c][0];
    }
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const int threads = omp_get_max_threads();
  return sink == 12345.0f ? 0.0 : 2.0 * kWidth * kChains * double(steps) * threads / best / 1e9;
}

}  // namespace tinylm::bench
