#include "nn/self_attention.h"

#include <cmath>

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm::nn {

SelfAttention::SelfAttention(int64_t d_model, int64_t d_k, int64_t d_v, bool bias)
    : w_q(d_model, d_k, bias),
      w_k(d_model, d_k, bias),
      w_v(d_model, d_v, bias),
      d_k_(d_k),
      d_v_(d_v) {}

void SelfAttention::init(Rng& rng, float std) {
  w_q.init(rng, std);
  w_k.init(rng, std);
  w_v.init(rng, std);
}

Tensor SelfAttention::forward(const Tensor& x, const ops::AttentionMask& mask) {
  require(x.ndim() == 3,
          [&] { return "SelfAttention: input must be [B, T, C], got " + shape_str(x.shape()); });
  const int64_t B = x.dim(0), T = x.dim(1);
  // Each projection reuses its own output buffer, so keep copies-by-handle here.
  q_ = w_q.forward(x);
  k_ = w_k.forward(x);
  v_ = w_v.forward(x);
  att_.ensure_shape({B, T, T});
  y_.ensure_shape({B, T, d_v_});
  const ops::AttentionShape s{B, T, T, d_k_, d_v_};
  on(q_).attention_forward(q_.data(), k_.data(), v_.data(), y_.data(), att_.data(), s,
                           1.0f / std::sqrt(static_cast<float>(d_k_)), mask, 0.0f, nullptr, 0);
  return y_;
}

Tensor SelfAttention::backward(const Tensor& dy) {
  const int64_t B = att_.dim(0), T = att_.dim(1);
  Tensor dq = Tensor::empty(q_.shape()), dk = Tensor::empty(k_.shape()),
         dv = Tensor::empty(v_.shape());
  const ops::AttentionShape s{B, T, T, d_k_, d_v_};
  on(q_).attention_backward(dy.data(), q_.data(), k_.data(), v_.data(), att_.data(), nullptr,
                            dq.data(), dk.data(), dv.data(), s,
                            1.0f / std::sqrt(static_cast<float>(d_k_)));
  Tensor dx = w_q.backward(dq).clone();
  const Tensor dx_k = w_k.backward(dk);
  const Tensor dx_v = w_v.backward(dv);
  for (int64_t i = 0; i < dx.numel(); ++i) dx[i] += dx_k[i] + dx_v[i];
  return dx;
}

void SelfAttention::parameters(ParameterList& list, const std::string& prefix) {
  w_q.parameters(list, prefix + "w_q.");
  w_k.parameters(list, prefix + "w_k.");
  w_v.parameters(list, prefix + "w_v.");
}

}  // namespace tinylm::nn
