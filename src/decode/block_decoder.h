// One transformer block with KV caches (nn/transformer_block.h's weights and wiring,
// without dropout): x [1, R, C], the spans' rows one after another (see
// attention_decoder.h) -> [1, R, C].
#pragma once
#include <span>

#include "decode/attention_decoder.h"
#include "decode/layer_decoders.h"
#include "nn/transformer_block.h"

namespace tinylm::decode {

class BlockDecoder {
 public:
  // rope: the model's rotary tables (rotary attention), else null.
  BlockDecoder(const nn::TransformerBlock& block, DecodeWeights type,
               const nn::RotaryTables* rope = nullptr);
  Tensor forward(const Tensor& x, std::span<const CachedSpan> spans);
  // Bytes one decode step reads: the linear layers (as their copies) and the norms.
  int64_t step_bytes() const;

 private:
  const nn::TransformerBlock* block_;
  NormDecoder ln_1_, ln_2_;
  AttentionDecoder attn_;
  FeedForwardDecoder mlp_;
  Tensor h_, y_;  // the residual stream after attention (pre-LN) and after the block
};

}  // namespace tinylm::decode
