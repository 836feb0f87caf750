// The gradient norm of each transformer block (all trainable parameters named "h.<l>."
// together, and LoRA adapters named "transformer.h.<l>."), read after backward and
// before clipping: how much signal reaches each layer. The course's residual experiment
// compares these with and without residual connections.
//   model with n_layer blocks -> [n_layer] L2 norms
#pragma once
#include <vector>

#include "model/gpt.h"

namespace tinylm {

std::vector<double> layer_grad_norms(GPT& model);
// The same over any parameters (a model's and its adapters'); frozen ones count nothing.
std::vector<double> layer_grad_norms(const ParameterList& params, int64_t n_layer);

}  // namespace tinylm
