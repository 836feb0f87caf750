// Position-wise feed-forward network, GPT-2's or the llama family's gated one (SwiGLU):
//   GPT-2:  y = W2 act(W1 x + b1) + b2      c_fc: C -> F, c_proj: F -> C, act: GELU or ReLU
//   llama:  y = down(silu(gate(x)) * up(x))  gate_proj, up_proj (c_fc): C -> F,
//                                            down_proj (c_proj): F -> C
//   forward:  x [B, T, C] -> y [B, T, C]
//   backward: dy [B, T, C] -> dx [B, T, C]
#pragma once
#include <string>

#include "nn/block_config.h"
#include "nn/linear.h"
#include "ops/activation.h"

namespace tinylm::nn {

class FeedForward {
 public:
  FeedForward() = default;
  FeedForward(int64_t d_model, int64_t d_ff, ops::Activation act, bool bias);
  // c's feed-forward: gated (SwiGLU, llama names) or not.
  explicit FeedForward(const BlockConfig& c);

  Tensor forward(const Tensor& x, const Context& ctx = {});
  Tensor backward(const Tensor& dy);
  void init(Rng& rng, float std, float proj_std);
  void parameters(ParameterList& list, const std::string& prefix);
  ops::Activation activation() const { return act_; }
  bool gated() const { return gated_; }
  // What a step keeps: the linears', the activation [B, T, F], and d(pre-activation)
  // [B, T, F] for backward (gated: d(gate), d(up), and dx [B, T, C]).
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const BlockConfig& c,
                           const StepShape& s);

  Linear c_fc;    // GPT-2's c_fc; llama's up_proj
  Linear c_proj;  // GPT-2's c_proj; llama's down_proj
  Linear gate;    // llama's gate_proj (gated only)

 private:
  ops::Activation act_ = ops::Activation::GeluTanh;
  bool gated_ = false;
  Tensor h_, a_, da_;  // pre-activation (gated: up), activation, d(pre-activation)
  Tensor g_;           // gated: gate(x), gate's own output buffer (valid until its next call)
  Tensor dgate_, dx_;  // gated: d(gate), and the two input gradients summed
};

}  // namespace tinylm::nn
