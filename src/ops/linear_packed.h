// The linear layer for prompts: many input rows against a weight matrix packed once (for
// inference) into panels of kPackedPanel outputs, the layout a GEMM's inner loop reads
// without a copy per call (docs/performance.md section 15):
//   packed_floats(OC, C)   floats of a packed copy: ceil(OC / kPackedPanel) panels of
//                          [C, kPackedPanel]
//   pack_linear:           W [OC, C] -> P, P[p, k, j] = W[p * kPackedPanel + j, k], zero
//                          past OC
//   linear_forward_packed: x [N, C], P, b [OC] (may be null) -> y [N, OC] = x W^T + b
// Each output is one sum in a fixed order, x[n, 0] W[o, 0] + x[n, 1] W[o, 1] + ..., one
// multiply-add per k (fused on builds with FMA), then + b[o]: it does not depend on the
// other rows, on how many there are, on the thread count or on the panel width.
// The panel width is the build's: 32 outputs (two 16-float vectors) on AVX-512 builds,
// 16 otherwise; a packed copy lives in memory only and is never saved.
#pragma once
#include <cstdint>

namespace tinylm::ops {

#if defined(__AVX512F__)
inline constexpr int64_t kPackedPanel = 32;
#else
inline constexpr int64_t kPackedPanel = 16;
#endif

inline int64_t packed_floats(int64_t OC, int64_t C) {
  return (OC + kPackedPanel - 1) / kPackedPanel * kPackedPanel * C;
}

void pack_linear(const float* W, float* P, int64_t OC, int64_t C);
void linear_forward_packed(const float* x, const float* P, const float* b, float* y, int64_t N,
                           int64_t C, int64_t OC);

namespace ref {
void pack_linear(const float* W, float* P, int64_t OC, int64_t C);
void linear_forward_packed(const float* x, const float* P, const float* b, float* y, int64_t N,
                           int64_t C, int64_t OC);
}  // namespace ref

}  // namespace tinylm::ops
