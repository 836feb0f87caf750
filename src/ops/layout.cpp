// The layout kernels of ops/layout.h on the CPU: the host loops nn/ and model/ used to
// run themselves, spread over the threads.
#include "ops/layout.h"

#include <cstring>

namespace tinylm::ops {

void add(const float* a, const float* b, float* y, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void scale(float* x, int64_t n, float s) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

void copy(const float* x, float* y, int64_t n) {
  if (n > 0 && x != y) std::memcpy(y, x, sizeof(float) * n);
}

void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh) {
  const int64_t C = H * dh;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < T; ++t) {
        const float* row = qkv + (b * T + t) * 3 * C + h * dh;
        const int64_t dst = ((b * H + h) * T + t) * dh;
        std::memcpy(q + dst, row, sizeof(float) * dh);
        std::memcpy(k + dst, row + C, sizeof(float) * dh);
        std::memcpy(v + dst, row + 2 * C, sizeof(float) * dh);
      }
}

void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh) {
  const int64_t C = H * dh;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < T; ++t) {
        float* row = qkv + (b * T + t) * 3 * C + h * dh;
        const int64_t src = ((b * H + h) * T + t) * dh;
        std::memcpy(row, q + src, sizeof(float) * dh);
        std::memcpy(row + C, k + src, sizeof(float) * dh);
        std::memcpy(row + 2 * C, v + src, sizeof(float) * dh);
      }
}

void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh) {
  const int64_t C = H * dh;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < H; ++h)
        std::memcpy(rows + (b * T + t) * C + h * dh, y + ((b * H + h) * T + t) * dh,
                    sizeof(float) * dh);
}

void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh) {
  const int64_t C = H * dh;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < H; ++h)
        std::memcpy(y + ((b * H + h) * T + t) * dh, rows + (b * T + t) * C + h * dh,
                    sizeof(float) * dh);
}

void add_positions(const float* tok, const float* pos, float* x, int64_t B, int64_t T, int64_t C) {
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c)
        x[(b * T + t) * C + c] = tok[(b * T + t) * C + c] + pos[t * C + c];
}

// Each entry summed in float in batch order.
void sum_over_batch(const float* dx, float* dpos, int64_t B, int64_t TC) {
#pragma omp parallel for
  for (int64_t i = 0; i < TC; ++i) {
    float sum = 0.0f;
    for (int64_t b = 0; b < B; ++b) sum += dx[b * TC + i];
    dpos[i] = sum;
  }
}

}  // namespace tinylm::ops
