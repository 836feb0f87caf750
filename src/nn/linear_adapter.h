// An extension point of Linear for fine-tuning adapters (LoRA lives in lora/):
// something that adds its own term to a Linear's output and backpropagates through it.
//   forward_add:  x [N, in] -> y [N, out] += adapter(x); ctx says whether this is a
//                 training step and gives the generator its dropout draws from
//   backward_add: x [N, in] (the forward's input), dy [N, out] -> dx [N, in] += d adapter / dx;
//                 accumulates the adapter's own parameter gradients.
// Linear owns no adapter parameters: whoever attaches the adapter lists them.
#pragma once
#include <cstdint>

#include "nn/context.h"
#include "tensor/parameter.h"

namespace tinylm::nn {

struct LinearAdapter {
  virtual ~LinearAdapter() = default;
  virtual void forward_add(const float* x, float* y, int64_t N, const Context& ctx) = 0;
  virtual void backward_add(const float* x, const float* dy, float* dx, int64_t N) = 0;
};

// The adapters attached to one model, as a model that owns them sees them (LoRA's LoraSet):
// their parameters, and the detaching of every adapter when the set goes.
struct AdapterSet {
  virtual ~AdapterSet() = default;
  virtual ParameterList parameters() = 0;
};

}  // namespace tinylm::nn
