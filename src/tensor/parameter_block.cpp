// Parameters as views into one block per device (see parameter_block.h).
#include "tensor/parameter_block.h"

#include <unordered_set>

namespace tinylm {

std::vector<Parameter*> unique_parameters(const ParameterList& params) {
  std::vector<Parameter*> out;
  std::unordered_set<Parameter*> seen;
  for (const auto& p : params)
    if (seen.insert(p.param).second) out.push_back(p.param);
  return out;
}

ParameterBlock::ParameterBlock(const ParameterList& params) {
  const std::vector<Parameter*> unique = unique_parameters(params);
  for (Parameter* p : unique) entries_.push_back({p, nullptr, nullptr});  // not in a block yet
  if (unique.empty()) return;
  const Device device = unique[0]->value.device();
  int64_t values = 0, grads = 0;
  for (const Parameter* p : unique) {
    if (p->value.device() != device) return;
    values += p->value.numel();
    if (p->trainable()) grads += p->grad.numel();
  }
  values_ = Tensor::empty({values}, device);
  if (grads > 0) grads_ = Tensor::zeros({grads}, device);
  int64_t v = 0, g = 0;
  entries_.clear();
  for (Parameter* p : unique) {
    Tensor value = values_.view(v, p->value.shape());
    value.copy_from(p->value);
    p->value = value;
    v += value.numel();
    const float* grad = nullptr;
    if (p->trainable()) {
      p->grad = grads_.view(g, p->value.shape());
      grad = p->grad.data();
      g += p->grad.numel();
    }
    entries_.push_back({p, p->value.data(), grad});
  }
}

bool ParameterBlock::intact() const {
  for (const Entry& e : entries_)
    if (e.param->value.data() != e.value ||
        (e.param->trainable() ? e.param->grad.data() : nullptr) != e.grad)
      return false;
  return true;
}

void ParameterBlock::zero_grads() {
  if (values_.defined() && intact()) {
    if (grads_.defined()) grads_.zero();
    return;
  }
  for (const Entry& e : entries_)
    if (e.param->trainable()) e.param->grad.zero();
}

}  // namespace tinylm
