// The layout kernels of ops/layout.h, reference version: one element at a time, the
// index arithmetic written out; sums in double.
#include "ops/layout.h"

namespace tinylm::ops::ref {

namespace {
// Index of (b, h, t, i) in [B, H, T, dh] and of (b, t, part, h, i) in [B, T, parts * H * dh].
int64_t head_index(int64_t b, int64_t h, int64_t t, int64_t i, int64_t H, int64_t T, int64_t dh) {
  return ((b * H + h) * T + t) * dh + i;
}
int64_t row_index(int64_t b, int64_t t, int64_t part, int64_t h, int64_t i, int64_t parts,
                  int64_t T, int64_t H, int64_t dh) {
  return (b * T + t) * parts * H * dh + part * H * dh + h * dh + i;
}
}  // namespace

void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void scale(float* x, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] * s;
}

void copy(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i];
}

void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh) {
  float* out[3] = {q, k, v};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t part = 0; part < 3; ++part)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i < dh; ++i)
            out[part][head_index(b, h, t, i, H, T, dh)] =
                qkv[row_index(b, t, part, h, i, 3, T, H, dh)];
}

void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh) {
  const float* in[3] = {q, k, v};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t part = 0; part < 3; ++part)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i < dh; ++i)
            qkv[row_index(b, t, part, h, i, 3, T, H, dh)] =
                in[part][head_index(b, h, t, i, H, T, dh)];
}

void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < dh; ++i)
          rows[row_index(b, t, 0, h, i, 1, T, H, dh)] = y[head_index(b, h, t, i, H, T, dh)];
}

void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < dh; ++i)
          y[head_index(b, h, t, i, H, T, dh)] = rows[row_index(b, t, 0, h, i, 1, T, H, dh)];
}

void add_positions(const float* tok, const float* pos, float* x, int64_t B, int64_t T, int64_t C) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c)
        x[(b * T + t) * C + c] = tok[(b * T + t) * C + c] + pos[t * C + c];
}

void repeat_kv(const float* kv, float* out, int64_t B, int64_t KV, int64_t g, int64_t n) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < KV * g; ++h)
      for (int64_t i = 0; i < n; ++i) out[(b * KV * g + h) * n + i] = kv[(b * KV + h / g) * n + i];
}

void sum_kv_groups(const float* d, float* dkv, int64_t B, int64_t KV, int64_t g, int64_t n) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t k = 0; k < KV; ++k)
      for (int64_t i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int64_t j = 0; j < g; ++j) sum += d[((b * KV + k) * g + j) * n + i];
        dkv[(b * KV + k) * n + i] = static_cast<float>(sum);
      }
}

void sum_over_batch(const float* dx, float* dpos, int64_t B, int64_t TC) {
  for (int64_t i = 0; i < TC; ++i) {
    double sum = 0.0;
    for (int64_t b = 0; b < B; ++b) sum += dx[b * TC + i];
    dpos[i] = static_cast<float>(sum);
  }
}

}  // namespace tinylm::ops::ref
