#include "nn/embedding.h"

#include "backend/registry.h"
#include "nn/init.h"

namespace tinylm::nn {

Embedding::Embedding(int64_t num, int64_t dim) : weight({num, dim}, true), num_(num), dim_(dim) {}

void Embedding::init(Rng& rng, float std) {
  init_normal(weight.value, rng, std);
}

Tensor Embedding::forward(const int32_t* ids, int64_t n) {
  const Device device = weight.value.device();
  ids_on_device_ = device_ids_.on(device, ids, n);
  n_ = n;
  y_.ensure_shape({n, dim_}, device);
  on(weight.value).embedding_forward(ids_on_device_, weight.value.data(), y_.data(), n, num_, dim_);
  return y_;
}

void Embedding::backward(const Tensor& dy) {
  if (!weight.trainable()) return;
  on(dy).embedding_backward(dy.data(), ids_on_device_, weight.grad.data(), n_, num_, dim_);
}

void Embedding::plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& dim,
                             const StepShape& s) {
  plan.add(BufferUse::kForward, prefix + ": ids (int32)", "[B, T]", s.rows());
  plan.add_rows(BufferUse::kForward, prefix + ": y", s, dim);
}

void Embedding::parameters(ParameterList& list, const std::string& prefix) {
  list.push_back({prefix + "weight", &weight});
}

}  // namespace tinylm::nn
