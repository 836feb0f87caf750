#include "decode/block_decoder.h"

namespace tinylm::decode {

BlockDecoder::BlockDecoder(const nn::TransformerBlock& block, DecodeWeights type,
                           const nn::RotaryTables* rope)
    : block_(&block),
      ln_1_(block.ln_1),
      ln_2_(block.ln_2),
      attn_(block.attn, type, rope),
      mlp_(block.mlp, type) {}

Tensor BlockDecoder::forward(const Tensor& x, std::span<const CachedSpan> spans) {
  if (block_->pre_ln()) {  // h = x + attn(ln_1(x)); y = h + mlp(ln_2(h))
    block_->add_residual(x, attn_.forward(ln_1_.forward(x), spans), h_);
    block_->add_residual(h_, mlp_.forward(ln_2_.forward(h_)), y_);
    return y_;
  }
  // post-LN: h = ln_1(x + attn(x)); y = ln_2(h + mlp(h))
  block_->add_residual(x, attn_.forward(x, spans), y_);
  const Tensor h = ln_1_.forward(y_);  // ln_1's own buffer
  block_->add_residual(h, mlp_.forward(h), y_);
  return ln_2_.forward(y_);
}

int64_t BlockDecoder::step_bytes() const {
  return ln_1_.step_bytes() + attn_.step_bytes() + ln_2_.step_bytes() + mlp_.step_bytes();
}

}  // namespace tinylm::decode
