// Layer normalisation over the last dimension (torch.nn.LayerNorm, biased variance).
//   weight [C] (gain, starts at 1), bias [C] (optional, starts at 0)
//   forward:  x [..., C] -> y [..., C]   (keeps x, mean, rstd)
//   backward: dy [..., C] -> dx [..., C]; accumulates weight.grad, bias.grad
#pragma once
#include <string>

#include "nn/buffer_plan.h"
#include "tensor/parameter.h"

namespace tinylm::nn {

class LayerNorm {
 public:
  LayerNorm() = default;
  LayerNorm(int64_t dim, bool bias, float eps = 1e-5f);

  Tensor forward(const Tensor& x);
  // The same normalisation into buffers the caller keeps (a decoder's), touching none of
  // this module's: y [..., C], mean and rstd [rows].
  void forward_into(const Tensor& x, Tensor& y, Tensor& mean, Tensor& rstd) const;
  Tensor backward(const Tensor& dy);
  void init();
  void parameters(ParameterList& list, const std::string& prefix);
  // What a step keeps: y, mean, rstd (x_ is a handle), and dx for backward.
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& dim,
                           const StepShape& s);

  Parameter weight;
  Parameter bias;

 private:
  int64_t dim_ = 0;
  bool has_bias_ = false;
  float eps_ = 1e-5f;
  Tensor x_, mean_, rstd_, y_, dx_;
};

}  // namespace tinylm::nn
