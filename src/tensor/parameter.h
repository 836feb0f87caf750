// A trainable parameter: its value, its gradient (same shape), and whether AdamW
// applies weight decay to it. Modules hand out pointers to their parameters, named
// the way the model's checkpoint names them ("h.0.attn.c_attn.weight").
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
  Parameter(const Shape& shape, bool decay_) : value(Tensor::zeros(shape)), grad(Tensor::zeros(shape)), decay(decay_) {}
};

struct NamedParameter {
  std::string name;
  Parameter* param;
};
using ParameterList = std::vector<NamedParameter>;

}  // namespace tinylm
