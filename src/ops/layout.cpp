// The layout kernels of ops/layout.h on the CPU: the host loops nn/ and model/ used to
// run themselves, spread over the threads when there is enough to spread (one decoding
// row's few thousand floats cost less than starting the threads: docs/performance.md
// section 20).
#include "ops/layout.h"

#include <cstring>

#include "ops/parallel_for.h"

namespace tinylm::ops {
namespace {
constexpr int64_t kMinParallel = 1 << 14;  // below this many floats moved, stay serial
}  // namespace

void add(const float* a, const float* b, float* y, int64_t n) {
  if (n >= kMinParallel) {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
  }
}

void scale(float* x, int64_t n, float s) {
  if (n >= kMinParallel) {
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) x[i] *= s;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) x[i] *= s;
  }
}

void copy(const float* x, float* y, int64_t n) {
  if (n > 0 && x != y) std::memcpy(y, x, sizeof(float) * n);
}

void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh) {
  const int64_t C = H * dh;
  parallel_for(B * H, B * T * 3 * C >= kMinParallel, [&](int64_t bh) {
    const int64_t b = bh / H, h = bh % H;
    for (int64_t t = 0; t < T; ++t) {
      const float* row = qkv + (b * T + t) * 3 * C + h * dh;
      const int64_t dst = (bh * T + t) * dh;
      std::memcpy(q + dst, row, sizeof(float) * dh);
      std::memcpy(k + dst, row + C, sizeof(float) * dh);
      std::memcpy(v + dst, row + 2 * C, sizeof(float) * dh);
    }
  });
}

void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh) {
  const int64_t C = H * dh;
  parallel_for(B * H, B * T * 3 * C >= kMinParallel, [&](int64_t bh) {
    const int64_t b = bh / H, h = bh % H;
    for (int64_t t = 0; t < T; ++t) {
      float* row = qkv + (b * T + t) * 3 * C + h * dh;
      const int64_t src = (bh * T + t) * dh;
      std::memcpy(row, q + src, sizeof(float) * dh);
      std::memcpy(row + C, k + src, sizeof(float) * dh);
      std::memcpy(row + 2 * C, v + src, sizeof(float) * dh);
    }
  });
}

void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh) {
  const int64_t C = H * dh;
  parallel_for(B * T, B * T * C >= kMinParallel, [&](int64_t bt) {
    const int64_t b = bt / T, t = bt % T;
    for (int64_t h = 0; h < H; ++h)
      std::memcpy(rows + bt * C + h * dh, y + ((b * H + h) * T + t) * dh, sizeof(float) * dh);
  });
}

void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh) {
  const int64_t C = H * dh;
  parallel_for(B * T, B * T * C >= kMinParallel, [&](int64_t bt) {
    const int64_t b = bt / T, t = bt % T;
    for (int64_t h = 0; h < H; ++h)
      std::memcpy(y + ((b * H + h) * T + t) * dh, rows + bt * C + h * dh, sizeof(float) * dh);
  });
}

void repeat_kv(const float* kv, float* out, int64_t B, int64_t KV, int64_t g, int64_t n) {
  parallel_for(B * KV * g, B * KV * g * n >= kMinParallel, [&](int64_t bh) {
    std::memcpy(out + bh * n, kv + (bh / g) * n, sizeof(float) * n);
  });
}

// Each entry summed in float in head order.
void sum_kv_groups(const float* d, float* dkv, int64_t B, int64_t KV, int64_t g, int64_t n) {
  parallel_for(B * KV, B * KV * g * n >= kMinParallel, [&](int64_t bk) {
    float* out = dkv + bk * n;
    const float* first = d + bk * g * n;
    std::memcpy(out, first, sizeof(float) * n);
    for (int64_t j = 1; j < g; ++j) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] += first[j * n + i];
    }
  });
}

void add_positions(const float* tok, const float* pos, float* x, int64_t B, int64_t T, int64_t C) {
  parallel_for(B * T, B * T * C >= kMinParallel, [&](int64_t bt) {
    const int64_t t = bt % T;
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) x[bt * C + c] = tok[bt * C + c] + pos[t * C + c];
  });
}

// Each entry summed in float in batch order.
void sum_over_batch(const float* dx, float* dpos, int64_t B, int64_t TC) {
  parallel_for(TC, B * TC >= kMinParallel, [&](int64_t i) {
    float sum = 0.0f;
    for (int64_t b = 0; b < B; ++b) sum += dx[b * TC + i];
    dpos[i] = sum;
  });
}

}  // namespace tinylm::ops
