#include "nn/rotary.h"

#include <vector>

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm::nn {

RotaryTables::RotaryTables(float theta, const ops::Llama3RopeScaling& scaling, int64_t head_dim,
                           int64_t max_len)
    : head_dim_(head_dim) {
  require(head_dim > 0 && head_dim % 2 == 0, "rotary embeddings need an even head width");
  const int64_t half = head_dim / 2;
  std::vector<float> inv_freq(static_cast<size_t>(half));
  ops::rope_inv_freq(theta, head_dim, scaling.factor > 0 ? &scaling : nullptr, inv_freq.data());
  cos_ = Tensor::empty({max_len, half});
  sin_ = Tensor::empty({max_len, half});
  ops::rope_tables(inv_freq.data(), half, max_len, cos_.data(), sin_.data());
}

void RotaryTables::to(Device device) {
  cos_ = cos_.to(device);
  sin_ = sin_.to(device);
}

void RotaryTables::rotate(Tensor& x, int64_t S, int64_t T, int64_t pos0) const {
  require(pos0 + T <= cos_.dim(0), "rotary embeddings: position beyond the model's context");
  on(x).rope_forward(x.data(), cos_.data(), sin_.data(), x.data(), S, T, head_dim_, pos0);
}

void RotaryTables::rotate_back(Tensor& d, int64_t S, int64_t T, int64_t pos0) const {
  on(d).rope_backward(d.data(), cos_.data(), sin_.data(), d.data(), S, T, head_dim_, pos0);
}

}  // namespace tinylm::nn
