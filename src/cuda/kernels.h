// The CUDA kernels of the training step that are not matrix products, with the same
// contracts as their CPU versions in ops/ (each .cu names its ops/ twin); every pointer
// is device memory. Tests compare each with ops::ref on odd shapes through the "cuda"
// backend (tests/backend/op_table_test.cpp, skipped without a GPU).
#pragma once
#include <cstdint>

#include "ops/activation.h"
#include "ops/adamw.h"
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

// ops/cross_entropy.h, split so that nothing waits on the device: per-row losses
//   row_loss [N] = logsumexp(logits_i) - logits_i,target (0 on ignored rows)
// and, if dlogits is not null, dlogits [N, V] = (softmax(logits_i) - onehot) / count
// (0 on ignored rows). `count` is the number of rows whose target is not ignore_index,
// and every other target must be in [0, V): the caller knows both from the host batch
// (the mean loss is sum(row_loss) / count).
void cross_entropy(const float* logits, const int32_t* targets, float* dlogits, float* row_loss,
                   int64_t N, int64_t V, int64_t count, int32_t ignore_index = kIgnoreIndex);

}  // namespace tinylm::cuda
