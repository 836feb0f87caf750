// SwiGLU's element-wise part, fast version (see swiglu.h): one vectorised pass, the
// sigmoid from exp_simd (exp of -|g| only, so it never overflows), split over the threads
// for large n.
#include "ops/swiglu.h"

#include <algorithm>
#include <cmath>

#include "ops/exp_simd.h"
#include "ops/parallel_for.h"

namespace tinylm::ops {

namespace {

constexpr int64_t kChunk = 1 << 14;  // elements per parallel piece

// sigmoid(g) from e = exp(-|g|) in (0, 1].
inline float sigmoid(float g) {
  const float e = exp_simd(-std::fabs(g));
  return g >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

template <class Body>
void in_chunks(int64_t n, const Body& body) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  parallel_for(chunks, chunks > 1, [&](int64_t c) {
    const int64_t i0 = c * kChunk, i1 = std::min(n, i0 + kChunk);
    body(i0, i1);
  });
}

}  // namespace

void swiglu_forward(const float* gate, const float* up, float* h, int64_t n) {
  in_chunks(n, [&](int64_t i0, int64_t i1) {
#pragma omp simd
    for (int64_t i = i0; i < i1; ++i) h[i] = gate[i] * sigmoid(gate[i]) * up[i];
  });
}

void swiglu_backward(const float* dh, const float* gate, const float* up, float* dgate, float* dup,
                     int64_t n) {
  in_chunks(n, [&](int64_t i0, int64_t i1) {
#pragma omp simd
    for (int64_t i = i0; i < i1; ++i) {
      const float g = gate[i], s = sigmoid(g);
      dgate[i] = dh[i] * up[i] * (s * (1.0f + g * (1.0f - s)));
      dup[i] = dh[i] * (g * s);
    }
  });
}

}  // namespace tinylm::ops
