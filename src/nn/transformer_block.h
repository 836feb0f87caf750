// One transformer block, with the residual branches wired explicitly.
//   pre-LN (GPT-2, default):  h = x + drop(attn(ln_1(x)));  y = h + drop(mlp(ln_2(h)))
//   post-LN (Vaswani et al.): h = ln_1(x + drop(attn(x)));  y = ln_2(h + drop(mlp(h)))
//   forward:  x [B, T, C] -> y [B, T, C]
//   backward: dy [B, T, C] -> dx [B, T, C]
// The llama family's block is the pre-LN one with RMSNorms, rotary grouped-query
// attention and a SwiGLU feed-forward, named as Hugging Face's LlamaDecoderLayer
// (input_layernorm, self_attn, post_attention_layernorm, mlp).
#pragma once
#include <string>

#include "nn/block_config.h"
#include "nn/dropout.h"
#include "nn/feed_forward.h"
#include "nn/multi_head_attention.h"
#include "nn/norm.h"

namespace tinylm::nn {

class TransformerBlock {
 public:
  TransformerBlock() = default;
  explicit TransformerBlock(const BlockConfig& c);

  // rope: the model's rotary tables (rotary attention), else null.
  Tensor forward(const Tensor& x, const Context& ctx, const ops::AttentionMask& mask,
                 const RotaryTables* rope = nullptr);
  Tensor backward(const Tensor& dy);
  void init(Rng& rng, float std, float proj_std);
  void parameters(ParameterList& list, const std::string& prefix);
  bool pre_ln() const { return pre_ln_; }
  // What a step keeps (x [B, T, C]): its modules', the two residual sums (pre-LN h_ and
  // y_, post-LN sum1_ and sum2_), and dh, dx for backward.
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const BlockConfig& c,
                           const StepShape& s);
  // out = a + b, or out = b when the residual connection is switched off.
  void add_residual(const Tensor& a, const Tensor& b, Tensor& out) const;

  Norm ln_1;
  MultiHeadAttention attn;  // llama: self_attn
  Norm ln_2;                // llama: post_attention_layernorm
  FeedForward mlp;

 private:
  Naming naming_ = Naming::kGpt2;
  bool pre_ln_ = true;
  bool residual_ = true;  // false: the skip connections are cut (out = f(x))
  Dropout attn_drop_, mlp_drop_;
  // Every buffer a step writes, kept from step to step (the memory plan); sum1_, sum2_
  // only post-LN. (Decoding's are decode/block_decoder.h's.)
  Tensor h_, y_, dh_, dx_, sum1_, sum2_;
};

// a + b, element-wise, into out (resized to a's shape).
void add_into(const Tensor& a, const Tensor& b, Tensor& out);

}  // namespace tinylm::nn
