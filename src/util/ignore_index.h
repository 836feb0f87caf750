// The target id that takes no loss: PyTorch's ignore_index default, -100. The loss
// (ops/cross_entropy.h) skips it; the data sets (data/batch.h) write it where nothing is
// to be predicted (the prompt, padding, a window's already scored part). It lives here,
// below both, so that neither has to include the other.
#pragma once
#include <cstdint>

namespace tinylm {

inline constexpr int32_t kIgnoreIndex = -100;

}  // namespace tinylm
