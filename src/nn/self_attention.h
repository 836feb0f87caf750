// Single-head self-attention, as the course introduces it, with separate projections:
//   Q = x W_Q^T, K = x W_K^T, V = x W_V^T    W_Q, W_K: [d_k, C], W_V: [d_v, C]
//   y = softmax(Q K^T / sqrt(d_k) + mask) V
//   forward:  x [B, T, C] -> y [B, T, d_v]     attention() is A [B, T, T]
//   backward: dy [B, T, d_v] -> dx [B, T, C]; accumulates the projections' gradients
// The mask is ops::AttentionMask: causal and/or additive [M, T, T] with M = 1 or B.
#pragma once
#include <string>

#include "nn/linear.h"
#include "ops/attention.h"

namespace tinylm::nn {

class SelfAttention {
 public:
  SelfAttention() = default;
  SelfAttention(int64_t d_model, int64_t d_k, int64_t d_v, bool bias);

  Tensor forward(const Tensor& x, const ops::AttentionMask& mask);
  Tensor backward(const Tensor& dy);
  void init(Rng& rng, float std);
  void parameters(ParameterList& list, const std::string& prefix);
  const Tensor& attention() const { return att_; }

  Linear w_q, w_k, w_v;

 private:
  int64_t d_k_ = 0, d_v_ = 0;
  Tensor q_, k_, v_, att_, y_;
};

}  // namespace tinylm::nn
