#include "decode/layer_decoders.h"

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm::decode {

LinearDecoder::LinearDecoder(const nn::Linear& layer, DecodeWeights type) : layer_(&layer) {
  copy_.make(layer.weight.value, type);
  packed_.make(layer.weight.value);
}

Tensor LinearDecoder::forward(const Tensor& x) {
  const int64_t in = layer_->in_features(), out = layer_->out_features();
  require(x.ndim() >= 1 && x.dim(-1) == in, [&] {
    return "Linear: input " + shape_str(x.shape()) + " does not end in " + std::to_string(in);
  });
  const int64_t n = x.numel() / in;
  y_.ensure_shape(nn::with_last_dim(x.shape(), out), x.device());
  const float* b = layer_->bias_or_null();
  const bool cpu = x.device() == Device::kCpu;
  if (cpu && copy_.serves(n))
    copy_.forward(x.data(), b, y_.data(), n);
  else if (cpu && packed_.serves(n))
    packed_.forward(x.data(), b, y_.data(), n);
  else
    on(x).linear_forward(x.data(), layer_->weight.value.data(), b, y_.data(), n, in, out);
  if (layer_->adapter) layer_->adapter->forward_add(x.data(), y_.data(), n, {});
  return y_;
}

int64_t LinearDecoder::step_bytes() const {
  const Tensor& w = layer_->weight.value;
  return (copy_.empty() ? 4 * w.numel() : copy_.bytes()) + 4 * layer_->bias.value.numel();
}

Tensor NormDecoder::forward(const Tensor& x) {
  norm_->forward_into(x, y_, mean_, rstd_);
  return y_;
}

int64_t NormDecoder::step_bytes() const {
  return 4 * (norm_->weight.value.numel() + norm_->bias.value.numel());
}

FeedForwardDecoder::FeedForwardDecoder(const nn::FeedForward& mlp, DecodeWeights type)
    : mlp_(&mlp), fc_(mlp.c_fc, type), proj_(mlp.c_proj, type) {
  if (mlp.gated()) gate_.emplace(mlp.gate, type);
}

Tensor FeedForwardDecoder::forward(const Tensor& x) {
  const Tensor h = fc_.forward(x);  // GPT-2: the pre-activation; SwiGLU: up(x)
  a_.ensure_shape(h.shape(), h.device());
  if (gate_)
    on(h).swiglu_forward(gate_->forward(x).data(), h.data(), a_.data(), h.numel());
  else
    on(h).activation_forward(mlp_->activation(), h.data(), a_.data(), h.numel());
  return proj_.forward(a_);
}

int64_t FeedForwardDecoder::step_bytes() const {
  return fc_.step_bytes() + proj_.step_bytes() + (gate_ ? gate_->step_bytes() : 0);
}

}  // namespace tinylm::decode
