// Moving numbers between the layouts of the model's layers, and the sums that join
// them: what nn/ and model/ used to do in host loops, as kernels, so that a model whose
// tensors live on a GPU never touches them from the host (the backend seam,
// docs/design.md "Backends"). Shapes:
//   qkv [B, T, 3C]  the fused query/key/value projection, C = H * dh
//   q, k, v, y [B, H, T, dh]  one [T, dh] block per (batch element, head)
//   rows [B, T, C]  the heads side by side again
//   kv [B, KV, T, dh]  grouped-query attention's key or value heads, KV = H / g: query
//                      head h reads kv head h / g
#pragma once
#include <cstdint>

namespace tinylm::ops {

// y [n] = a + b (y may be a or b)
void add(const float* a, const float* b, float* y, int64_t n);
// x [n] *= s
void scale(float* x, int64_t n, float s);
// y [n] = x
void copy(const float* x, float* y, int64_t n);

// qkv [B, T, 3C] -> q, k, v [B, H, T, dh]
void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh);
// dq, dk, dv [B, H, T, dh] -> dqkv [B, T, 3C] (the inverse of split_heads)
void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh);
// y [B, H, T, dh] -> rows [B, T, C]
void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh);
// rows [B, T, C] -> y [B, H, T, dh] (the inverse of heads_to_rows)
void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh);

// kv [B, KV, T*dh] -> out [B, KV*g, T*dh]: each kv head copied to the g query heads of its
// group (n = T * dh)
void repeat_kv(const float* kv, float* out, int64_t B, int64_t KV, int64_t g, int64_t n);
// d [B, KV*g, n] -> dkv [B, KV, n] = the sum over each group's g heads (the inverse of
// repeat_kv's gradient; overwritten)
void sum_kv_groups(const float* d, float* dkv, int64_t B, int64_t KV, int64_t g, int64_t n);

// x [B, T, C] = tok [B, T, C] + pos [T, C] (every batch element gets the same positions)
void add_positions(const float* tok, const float* pos, float* x, int64_t B, int64_t T, int64_t C);
// dpos [T*C] = sum over b of dx [B, T*C] (overwritten)
void sum_over_batch(const float* dx, float* dpos, int64_t B, int64_t TC);

namespace ref {
void add(const float* a, const float* b, float* y, int64_t n);
void scale(float* x, int64_t n, float s);
void copy(const float* x, float* y, int64_t n);
void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh);
void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh);
void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh);
void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh);
void repeat_kv(const float* kv, float* out, int64_t B, int64_t KV, int64_t g, int64_t n);
void sum_kv_groups(const float* d, float* dkv, int64_t B, int64_t KV, int64_t g, int64_t n);
void add_positions(const float* tok, const float* pos, float* x, int64_t B, int64_t T, int64_t C);
void sum_over_batch(const float* dx, float* dpos, int64_t B, int64_t TC);
}  // namespace ref

}  // namespace tinylm::ops
