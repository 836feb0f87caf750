#include "optim/adamw.h"

#include "backend/registry.h"

namespace tinylm {

AdamW::AdamW(ParameterList params, const AdamWConfig& config) : config_(config) {
  for (const auto& p : params)
    if (p.param->trainable()) params_.push_back(p);
  for (const auto& p : params_) {
    m_.push_back(Tensor::zeros(p.param->value.shape(), p.param->value.device()));
    v_.push_back(Tensor::zeros(p.param->value.shape(), p.param->value.device()));
  }
}

void AdamW::step(float lr) {
  ++step_;
  thread_local std::vector<ops::AdamWSpan> spans;  // kept from call to call (the memory plan)
  spans.clear();
  Device device = Device::kCpu;
  for (size_t i = 0; i < params_.size(); ++i) {
    Parameter& p = *params_[i].param;
    spans.push_back(
        {p.value.data(), p.grad.data(), m_[i].data(), v_[i].data(), p.value.numel(), p.decay});
    device = p.value.device();
  }
  const ops::AdamWHyper h{lr, config_.beta1, config_.beta2, config_.eps, config_.weight_decay};
  backend_for(device).adamw_update_spans(spans, h, step_);
}

double clip_gradients(const ParameterList& params, double max_norm) {
  thread_local std::vector<ops::GradSpan> spans;  // kept from call to call (the memory plan)
  spans.clear();
  Device device = Device::kCpu;
  for (const auto& p : params)
    if (p.param->trainable()) {
      spans.push_back({p.param->grad.data(), p.param->grad.numel()});
      device = p.param->grad.device();
    }
  return backend_for(device).clip_grad_norm(spans, max_norm);
}

}  // namespace tinylm
