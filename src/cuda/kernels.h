// The CUDA kernels that are not matrix products (those are in cuda/products.h), with the
// same contracts as their CPU versions in ops/ (each .cu names its ops/ twin); every
// pointer is device memory, except the host random generator of dropout and the host
// vector of clipping's spans (whose data are device memory). Tests compare each with
// ops::ref on odd shapes through the "cuda" backend (tests/backend/op_table_test.cpp,
// skipped without a GPU).
#pragma once
#include <cstdint>
#include <vector>

#include "ops/activation.h"
#include "ops/adamw.h"
#include "ops/clip.h"
#include "ops/precision.h"
#include "util/ignore_index.h"

namespace tinylm::cuda {

// ops/layernorm.h: x [N, C] -> y [N, C], mean [N], rstd [N]; b may be null.
void layernorm_forward(const float* x, const float* w, const float* b, float* y, float* mean,
                       float* rstd, int64_t N, int64_t C, float eps);
// dx [N, C] overwritten; dw [C] and db [C] accumulated (+=), each skipped when null.
void layernorm_backward(const float* dy, const float* x, const float* w, const float* mean,
                        const float* rstd, float* dx, float* dw, float* db, int64_t N, int64_t C);

// ops/activation.h: y [N] = f(x); dx [N] = dy * f'(x) (overwritten).
void activation_forward(ops::Activation a, const float* x, float* y, int64_t N);
void activation_backward(ops::Activation a, const float* dy, const float* x, float* dx, int64_t N);

// ops/adamw.h: one AdamW step (t >= 1) of p, m, v [N] with gradient g [N].
void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const ops::AdamWHyper& h,
                  int64_t step);
// ops/adamw.h: every span's step in one launch (the spans' data are device memory).
void adamw_update_spans(const std::vector<ops::AdamWSpan>& spans, const ops::AdamWHyper& h,
                        int64_t step);

// ops/cross_entropy.h, split so that nothing waits on the device: per-row losses
//   row_loss [N] = logsumexp(logits_i) - logits_i,target (0 on ignored rows)
// and, if dlogits is not null, dlogits [N, V] = (softmax(logits_i) - onehot) / count
// (0 on ignored rows). `count` is the number of rows whose target is not ignore_index,
// and every other target must be in [0, V): the caller knows both from the host batch
// (the mean loss is sum(row_loss) / count).
void cross_entropy(const float* logits, const int32_t* targets, float* dlogits, float* row_loss,
                   int64_t N, int64_t V, int64_t count, int32_t ignore_index = kIgnoreIndex);

// ops/softmax.h: x [N, D] -> y [N, D] row-wise (-inf weighs 0, an all -inf row gives 0);
// backward dx [N, D] = y * (dy - sum(dy * y)) row-wise (overwritten).
void softmax_forward(const float* x, float* y, int64_t N, int64_t D);
void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D);

// ops/embedding.h: ids [N] (device int32, each in [0, V): downloaded and checked first,
// an InputError naming the first bad id), table [V, C] -> y [N, C];
// backward dtable [V, C] += dy [N, C] scattered by id, each id's rows added in index order
// (the same float sums as the CPU: no atomics).
void embedding_forward(const int32_t* ids, const float* table, float* y, int64_t N, int64_t V,
                       int64_t C);
void embedding_backward(const float* dy, const int32_t* ids, float* dtable, int64_t N, int64_t V,
                        int64_t C);

// ops/dropout.h: mask [N] drawn on the device by the rule of ops::dropout_draw_mask (the
// CPU's draws from key, and its check of p); y [N] = x * mask. p == 0: y = x, mask = 1.
// backward: dx [N] = dy * mask.
void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, uint64_t key);
void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N);

// ops/clip.h: the global norm of the spans (device memory), sum of squares in double on
// the device, one download; every span scaled by coef = max_norm / (norm + 1e-6) when
// coef < 1. Returns the norm before clipping.
double clip_grad_norm(const std::vector<ops::GradSpan>& grads, double max_norm);

// ops/layout.h: the layouts of the model's layers and the sums that join them.
//   qkv [B, T, 3C], q k v y [B, H, T, dh], rows [B, T, C] with C = H * dh
void add(const float* a, const float* b, float* y, int64_t n);  // y [n] = a + b
void scale(float* x, int64_t n, float s);                       // x [n] *= s
void copy(const float* x, float* y, int64_t n);                 // y [n] = x
void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh);
void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh);
void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh);
void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh);
// x [B, T, C] = tok [B, T, C] + pos [T, C]
void add_positions(const float* tok, const float* pos, float* x, int64_t B, int64_t T, int64_t C);
// dpos [TC] = sum over b of dx [B, TC] (in double, as ops::ref; overwritten)
void sum_over_batch(const float* dx, float* dpos, int64_t B, int64_t TC);

// How every matrix product computes from now on (ops/precision.h; fp32 until set).
void set_matmul_precision(ops::MatmulPrecision p);

// Whether tiled attention may take the fused tensor-core kernels (cuda/flash_attention.cuh)
// from now on; off unless set (or TINYLM_CUDA_FLASH=1): for now they are the slower path.
void set_flash_attention(bool on);

// Helpers of the kernels above (no ops/ twin): x [n] = value; y [n] = a * b. (Dropout
// masks are drawn inside the kernels that apply them: cuda/dropout.cuh.)
void fill(float* x, int64_t n, float value);
void multiply(const float* a, const float* b, float* y, int64_t n);

}  // namespace tinylm::cuda
