#include "optim/adamw.h"

#include "backend/registry.h"

namespace tinylm {

AdamW::AdamW(ParameterList params, const AdamWConfig& config) : config_(config) {
  int64_t total = 0;
  for (const auto& p : params)
    if (p.param->trainable()) {
      params_.push_back(p);
      total += p.param->value.numel();
      device_ = p.param->value.device();
    }
  // The moments: views into one block each; the spans the update walks, made once.
  const Tensor m = Tensor::zeros({total}, device_), v = Tensor::zeros({total}, device_);
  int64_t at = 0;
  for (const auto& p : params_) {
    Parameter& q = *p.param;
    m_.push_back(m.view(at, q.value.shape()));
    v_.push_back(v.view(at, q.value.shape()));
    spans_.push_back({q.value.data(), q.grad.data(), m_.back().data(), v_.back().data(),
                      q.value.numel(), q.decay});
    at += q.value.numel();
  }
}

void AdamW::step(float lr) {
  ++step_;
  const ops::AdamWHyper h{lr, config_.beta1, config_.beta2, config_.eps, config_.weight_decay};
  backend_for(device_).adamw_update_spans(spans_, h, step_);
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
