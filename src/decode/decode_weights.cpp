#include "decode/decode_weights.h"

#include <string>

#include "backend/registry.h"
#include "ops/matmul.h"
#include "util/error.h"
#include "util/q8_0.h"

namespace tinylm::decode {

const char* decode_weights_name(DecodeWeights type) {
  switch (type) {
    case DecodeWeights::kF32:
      return "f32";
    case DecodeWeights::kF16:
      return "f16";
    case DecodeWeights::kBf16:
      return "bf16";
    case DecodeWeights::kQ8_0:
      return "q8_0";
  }
  return "?";
}

DecodeWeights parse_decode_weights(std::string_view name) {
  for (DecodeWeights t :
       {DecodeWeights::kF32, DecodeWeights::kF16, DecodeWeights::kBf16, DecodeWeights::kQ8_0})
    if (name == decode_weights_name(t)) return t;
  throw InputError("decode weights '" + std::string(name) + "': expected f32, f16, bf16 or q8_0");
}

void DecodeCopy::make(const Tensor& w, DecodeWeights type) {
  f16_ = {};
  bf16_ = {};
  q8_ = {};
  q8_d_ = {};
  in_ = w.ndim() == 2 ? w.dim(1) : 0;
  out_ = w.ndim() == 2 ? w.dim(0) : 0;
  if (w.numel() == 0 || w.device() != Device::kCpu) return;  // a CPU decoding path
  if (type == DecodeWeights::kF16) {
    f16_.resize(static_cast<size_t>(w.numel()));
    on(w).to_f16(w.data(), f16_.data(), w.numel());
  } else if (type == DecodeWeights::kBf16) {
    bf16_.resize(static_cast<size_t>(w.numel()));
    on(w).to_bf16(w.data(), bf16_.data(), w.numel());
  } else if (type == DecodeWeights::kQ8_0 && in_ % kQ8Block == 0) {
    q8_.resize(static_cast<size_t>(w.numel()));
    q8_d_.resize(static_cast<size_t>(w.numel() / kQ8Block));
    on(w).quantize_q8_0(w.data(), q8_.data(), q8_d_.data(), out_, in_);
  }
}

bool DecodeCopy::serves(int64_t rows) const {
  return !empty() && rows >= 1 && rows <= ops::kRowInvariantMaxRows;
}

void DecodeCopy::forward(const float* x, const float* b, float* y, int64_t rows) const {
  const Backend& cpu = backend_for(Device::kCpu);
  if (!f16_.empty())
    cpu.linear_forward_f16(x, f16_.data(), b, y, rows, in_, out_);
  else if (!bf16_.empty())
    cpu.linear_forward_bf16(x, bf16_.data(), b, y, rows, in_, out_);
  else
    cpu.linear_forward_q8_0(x, q8_.data(), q8_d_.data(), b, y, rows, in_, out_);
}

int64_t DecodeCopy::bytes() const {
  return static_cast<int64_t>((f16_.size() + bf16_.size() + q8_d_.size()) * sizeof(uint16_t) +
                              q8_.size());
}

}  // namespace tinylm::decode
