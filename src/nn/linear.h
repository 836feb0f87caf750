// Linear layer (PyTorch layout): y = x @ W^T + b.
//   weight [out, in], bias [out] (optional)
//   forward:  x [..., in]  -> y [..., out]   (keeps x for backward)
//   backward: dy [..., out] -> dx [..., in]; accumulates weight.grad, bias.grad (skipped for
//             a frozen parameter)
//   adapter (optional, fine-tuning): y += adapter(x), backpropagated with the rest
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "nn/buffer_plan.h"
#include "nn/context.h"
#include "nn/linear_adapter.h"
#include "tensor/parameter.h"

namespace tinylm::nn {

class Linear {
 public:
  Linear() = default;
  Linear(int64_t in, int64_t out, bool bias);

  // ctx reaches an attached adapter (its dropout); the linear map itself has none.
  Tensor forward(const Tensor& x, const Context& ctx = {});
  Tensor backward(const Tensor& dy);
  void init(Rng& rng, float std);
  void parameters(ParameterList& list, const std::string& prefix);
  // What a step keeps (x [B, T, in]): y [B, T, out] (x_ is a handle to the caller's
  // input), and dx [B, T, in] for backward.
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& in,
                           const Width& out, const StepShape& s);

  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }
  bool has_bias() const { return has_bias_; }
  // The bias, or null when the layer has none.
  const float* bias_or_null() const { return has_bias_ ? bias.value.data() : nullptr; }

  Parameter weight;                        // [out, in]
  Parameter bias;                          // [out] (empty when has_bias is false)
  std::shared_ptr<LinearAdapter> adapter;  // null unless a fine-tuning adapter is attached

 private:
  int64_t in_ = 0, out_ = 0;
  bool has_bias_ = false;
  Tensor x_;       // saved input
  Tensor y_, dx_;  // reused output buffers
};

// The output shape of a linear map applied to the last dimension of `shape`.
Shape with_last_dim(const Shape& shape, int64_t last);

}  // namespace tinylm::nn
