// Embedding lookup: ids [N] (each in [0, V)), table [V, C] -> y [N, C].
// backward: dtable [V, C] += scatter-add of dy [N, C] by id.
// Ids out of range throw InputError naming the id.
#pragma once
#include <cstdint>

namespace tinylm::ops {

void embedding_forward(const int32_t* ids, const float* table, float* y, int64_t N, int64_t V,
                       int64_t C);
void embedding_backward(const float* dy, const int32_t* ids, float* dtable, int64_t N, int64_t V,
                        int64_t C);

namespace ref {
void embedding_forward(const int32_t* ids, const float* table, float* y, int64_t N, int64_t V,
                       int64_t C);
void embedding_backward(const float* dy, const int32_t* ids, float* dtable, int64_t N, int64_t V,
                        int64_t C);
}  // namespace ref

}  // namespace tinylm::ops
