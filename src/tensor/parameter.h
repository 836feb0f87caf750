// A trainable parameter: its value, its gradient (same shape), and whether AdamW
// applies weight decay to it. A frozen parameter (set_trainable(false), for fine-tuning)
// has no gradient buffer: modules skip its gradient work and AdamW keeps no state for it. Modules
// hand out pointers to their parameters, named the way the model's checkpoint names them
// ("h.0.attn.c_attn.weight").
#pragma once
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace tinylm {

struct Parameter {
  Tensor value;
  Tensor grad;
  bool decay = true;  // false for biases, LayerNorm gains (and embeddings if configured)

  Parameter() = default;
  Parameter(const Shape& shape, bool decay_)
      : value(Tensor::zeros(shape)), grad(Tensor::zeros(shape)), decay(decay_) {}

  bool trainable() const { return grad.defined(); }
  // Frozen: the gradient buffer is released. Trainable again: a zero gradient.
  void set_trainable(bool on) {
    if (!on)
      grad = Tensor();
    else if (!grad.defined())
      grad = Tensor::zeros(value.shape());
  }
  // The gradient buffer, or null when frozen (what kernels take for "skip this").
  float* grad_or_null() { return grad.defined() ? grad.data() : nullptr; }
  // Value and gradient moved to `device` (nothing happens for those already there).
  void to(Device device) {
    value = value.to(device);
    if (grad.defined()) grad = grad.to(device);
  }
};

struct NamedParameter {
  std::string name;
  Parameter* param;
};
using ParameterList = std::vector<NamedParameter>;

// Elements that train and that are frozen (a tensor listed twice, as a tied head, once).
struct ParameterCounts {
  int64_t trainable = 0, frozen = 0;
};
ParameterCounts count_parameters(const ParameterList& params);

// The parameters that currently train (what AdamW and gradient clipping work on).
ParameterList trainable_only(const ParameterList& params);

// Every parameter of the list moved to `device`.
void move_parameters(const ParameterList& params, Device device);

}  // namespace tinylm
