// Rotary position embeddings, fast version (see rope.h): rows in parallel, each row's
// halves rotated with float products (one fused pass, in place allowed); the tables.
#include "ops/rope.h"

#include <cmath>

#include "ops/parallel_for.h"

namespace tinylm::ops {

namespace {

constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial

// y = R(sign * a) x for every row: sign +1 forward, -1 backward.
void rotate(const float* x, const float* cos, const float* sin, float* y, int64_t S, int64_t T,
            int64_t D, int64_t pos0, float sign) {
  const int64_t half = D / 2, rows = S * T;
  parallel_for(rows, rows > 1 && rows * D >= kMinParallel, [&](int64_t r) {
    const float* xr = x + r * D;
    float* yr = y + r * D;
    const float* c = cos + (pos0 + r % T) * half;
    const float* sn = sin + (pos0 + r % T) * half;
#pragma omp simd
    for (int64_t i = 0; i < half; ++i) {
      const float a = xr[i], b = xr[i + half], si = sign * sn[i];
      yr[i] = a * c[i] - b * si;
      yr[i + half] = b * c[i] + a * si;
    }
  });
}

}  // namespace

void rope_inv_freq(float theta, int64_t D, const Llama3RopeScaling* scaling, float* inv_freq) {
  const int64_t half = D / 2;
  for (int64_t i = 0; i < half; ++i)  // 1 / theta ** (arange(0, D, 2).float() / D)
    inv_freq[i] = 1.0f / std::pow(theta, static_cast<float>(2 * i) / static_cast<float>(D));
  if (!scaling) return;
  const float old_len = static_cast<float>(scaling->original_max_position);
  const float low_wavelen = old_len / scaling->low_freq_factor;
  const float high_wavelen = old_len / scaling->high_freq_factor;
  for (int64_t i = 0; i < half; ++i) {
    const float wavelen = 2.0f * static_cast<float>(M_PI) / inv_freq[i];
    float f = wavelen > low_wavelen ? inv_freq[i] / scaling->factor : inv_freq[i];
    if (!(wavelen < high_wavelen) && !(wavelen > low_wavelen)) {  // the band between
      const float smooth = (old_len / wavelen - scaling->low_freq_factor) /
                           (scaling->high_freq_factor - scaling->low_freq_factor);
      f = (1.0f - smooth) * f / scaling->factor + smooth * f;
    }
    inv_freq[i] = f;
  }
}

void rope_tables(const float* inv_freq, int64_t half, int64_t n_pos, float* cos, float* sin) {
  for (int64_t p = 0; p < n_pos; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const float angle = static_cast<float>(p) * inv_freq[i];
      cos[p * half + i] = static_cast<float>(std::cos(static_cast<double>(angle)));
      sin[p * half + i] = static_cast<float>(std::sin(static_cast<double>(angle)));
    }
}

void rope_forward(const float* x, const float* cos, const float* sin, float* y, int64_t S,
                  int64_t T, int64_t D, int64_t pos0) {
  rotate(x, cos, sin, y, S, T, D, pos0, 1.0f);
}

void rope_backward(const float* dy, const float* cos, const float* sin, float* dx, int64_t S,
                   int64_t T, int64_t D, int64_t pos0) {
  rotate(dy, cos, sin, dx, S, T, D, pos0, -1.0f);
}

}  // namespace tinylm::ops
