// Rotary position embeddings, reference version (double products; see rope.h).
#include "ops/rope.h"

namespace tinylm::ops::ref {

namespace {

// y = R(sign * a) x for every row: sign +1 forward, -1 backward.
void rotate(const float* x, const float* cos, const float* sin, float* y, int64_t S, int64_t T,
            int64_t D, int64_t pos0, double sign) {
  const int64_t half = D / 2;
  for (int64_t s = 0; s < S; ++s)
    for (int64_t t = 0; t < T; ++t) {
      const float* xr = x + (s * T + t) * D;
      float* yr = y + (s * T + t) * D;
      const float* c = cos + (pos0 + t) * half;
      const float* sn = sin + (pos0 + t) * half;
      for (int64_t i = 0; i < half; ++i) {
        const double a = xr[i], b = xr[i + half], co = c[i], si = sign * sn[i];
        yr[i] = static_cast<float>(a * co - b * si);
        yr[i + half] = static_cast<float>(b * co + a * si);
      }
    }
}

}  // namespace

void rope_forward(const float* x, const float* cos, const float* sin, float* y, int64_t S,
                  int64_t T, int64_t D, int64_t pos0) {
  rotate(x, cos, sin, y, S, T, D, pos0, 1.0);
}

void rope_backward(const float* dy, const float* cos, const float* sin, float* dx, int64_t S,
                   int64_t T, int64_t D, int64_t pos0) {
  rotate(dy, cos, sin, dx, S, T, D, pos0, -1.0);
}

}  // namespace tinylm::ops::ref
