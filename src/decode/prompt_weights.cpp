#include "decode/prompt_weights.h"

#include "backend/registry.h"
#include "ops/linear_packed.h"
#include "ops/matmul.h"

namespace tinylm::decode {

void PromptCopy::make(const Tensor& w) {
  panels_ = {};
  in_ = w.ndim() == 2 ? w.dim(1) : 0;
  out_ = w.ndim() == 2 ? w.dim(0) : 0;
  if (w.numel() == 0 || w.device() != Device::kCpu) return;  // a CPU path
  panels_.resize(static_cast<size_t>(ops::packed_floats(out_, in_)));
  on(w).pack_linear(w.data(), panels_.data(), out_, in_);
}

bool PromptCopy::serves(int64_t rows) const {
  return !empty() && rows > ops::kRowInvariantMaxRows;
}

void PromptCopy::forward(const float* x, const float* b, float* y, int64_t rows) const {
  backend_for(Device::kCpu).linear_forward_packed(x, panels_.data(), b, y, rows, in_, out_);
}

}  // namespace tinylm::decode
