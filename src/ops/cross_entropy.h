// Cross-entropy of logits against target ids, averaged over the positions whose target
// is not ignore_index (PyTorch's F.cross_entropy(..., ignore_index=...) with 'mean').
//   logits [N, V], targets [N] -> returns the mean loss (0 if every target is ignored).
//   If dlogits is not null it receives d(mean loss)/d(logits) [N, V]
//   = (softmax(logits) - onehot(target)) / count, and 0 on ignored rows.
//   Targets outside [0, V) that are not ignore_index throw InputError.
#pragma once
#include <cstdint>

#include "util/ignore_index.h"

namespace tinylm::ops {

using tinylm::kIgnoreIndex;  // -100

double cross_entropy(const float* logits, const int32_t* targets, float* dlogits, int64_t N,
                     int64_t V, int32_t ignore_index = kIgnoreIndex);

namespace ref {
double cross_entropy(const float* logits, const int32_t* targets, float* dlogits, int64_t N,
                     int64_t V, int32_t ignore_index = kIgnoreIndex);
}  // namespace ref

}  // namespace tinylm::ops
