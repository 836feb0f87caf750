// What decoding keeps for the small layers of a trainable model (nn/): the copies of a
// linear layer's weight it reads, and the buffers each layer writes. The modules keep
// training's buffers; a decoder reads its module's weights (never writes them) and runs
// its forward without dropout on its own buffers, kept from step to step (the memory
// plan). The module must outlive its decoder and keep its weights while it is used: the
// copies are made once, when the decoder is.
//   LinearDecoder       nn::Linear       x [..., in] -> y [..., out]
//   NormDecoder         nn::Norm    x [..., C]  -> y [..., C]
//   FeedForwardDecoder  nn::FeedForward  x [..., C]  -> y [..., C]  (GELU/ReLU or SwiGLU)
#pragma once
#include <cstdint>
#include <optional>

#include "decode/decode_weights.h"
#include "decode/prompt_weights.h"
#include "nn/feed_forward.h"
#include "nn/linear.h"
#include "nn/norm.h"

namespace tinylm::decode {

// y = x W^T + b from the copy that serves the rows (on the CPU): the decode copy in
// `type` for a few rows (decode steps, short prompts), the packed float32 copy for more
// (prompts); on another device the float32 weight. An attached adapter adds its part
// (eval: no dropout).
class LinearDecoder {
 public:
  LinearDecoder(const nn::Linear& layer, DecodeWeights type);
  Tensor forward(const Tensor& x);
  const PromptCopy& prompt_copy() const { return packed_; }
  // Bytes one decode step (batch 1) reads: the decode copy (or the float32 weight) and
  // the bias.
  int64_t step_bytes() const;

 private:
  const nn::Linear* layer_;
  DecodeCopy copy_;
  PromptCopy packed_;
  Tensor y_;
};

class NormDecoder {
 public:
  explicit NormDecoder(const nn::Norm& norm) : norm_(&norm) {}
  Tensor forward(const Tensor& x);
  int64_t step_bytes() const;  // weight and bias

 private:
  const nn::Norm* norm_;
  Tensor y_, mean_, rstd_;
};

class FeedForwardDecoder {
 public:
  FeedForwardDecoder(const nn::FeedForward& mlp, DecodeWeights type);
  Tensor forward(const Tensor& x);
  int64_t step_bytes() const;

 private:
  const nn::FeedForward* mlp_;
  LinearDecoder fc_, proj_;
  std::optional<LinearDecoder> gate_;  // SwiGLU's gate_proj
  Tensor a_;                           // the activation [..., F]
};

}  // namespace tinylm::decode
