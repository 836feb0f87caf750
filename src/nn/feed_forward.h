// Position-wise feed-forward network: y = W2 act(W1 x + b1) + b2
//   c_fc: C -> d_ff, c_proj: d_ff -> C, act: GELU (tanh or exact) or ReLU
//   forward:  x [B, T, C] -> y [B, T, C]
//   backward: dy [B, T, C] -> dx [B, T, C]
#pragma once
#include <string>

#include "nn/linear.h"
#include "ops/activation.h"

namespace tinylm::nn {

class FeedForward {
 public:
  FeedForward() = default;
  FeedForward(int64_t d_model, int64_t d_ff, ops::Activation act, bool bias);

  Tensor forward(const Tensor& x, const Context& ctx = {});
  Tensor backward(const Tensor& dy);
  void init(Rng& rng, float std, float proj_std);
  void parameters(ParameterList& list, const std::string& prefix);
  ops::Activation activation() const { return act_; }
  // What a step keeps: c_fc's and c_proj's, the activation [B, T, F], and
  // d(pre-activation) [B, T, F] for backward.
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& d_model,
                           const Width& d_ff, const StepShape& s);

  Linear c_fc, c_proj;

 private:
  ops::Activation act_ = ops::Activation::GeluTanh;
  Tensor h_, a_, da_;  // pre-activation, activation, and d(pre-activation)
};

}  // namespace tinylm::nn
