// Normalisation over the last dimension, one module for the two kinds:
//   LayerNorm (GPT-2, torch.nn.LayerNorm, biased variance): y = (x - mean) * rstd * w + b
//   RMSNorm (the llama family, HF's LlamaRMSNorm in float32): y = x * rstd * w, no mean, no
//   bias, rstd = 1 / sqrt(mean(x^2) + eps)
//   weight [C] (gain, starts at 1), bias [C] (LayerNorm, optional, starts at 0)
//   forward:  x [..., C] -> y [..., C]   (keeps x, mean, rstd; RMSNorm no mean)
//   backward: dy [..., C] -> dx [..., C]; accumulates weight.grad, bias.grad
#pragma once
#include <string>

#include "nn/buffer_plan.h"
#include "tensor/parameter.h"

namespace tinylm::nn {

enum class NormKind { kLayerNorm, kRmsNorm };

class Norm {
 public:
  Norm() = default;
  // RMSNorm takes no bias (InputError).
  Norm(int64_t dim, bool bias, float eps = 1e-5f, NormKind kind = NormKind::kLayerNorm);

  Tensor forward(const Tensor& x);
  // The same normalisation into buffers the caller keeps (a decoder's), touching none of
  // this module's: y [..., C], mean (LayerNorm only) and rstd [rows].
  void forward_into(const Tensor& x, Tensor& y, Tensor& mean, Tensor& rstd) const;
  Tensor backward(const Tensor& dy);
  void init();
  void parameters(ParameterList& list, const std::string& prefix);
  NormKind kind() const { return kind_; }
  // What a step keeps: y, mean, rstd (x_ is a handle), and dx for backward.
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& dim,
                           const StepShape& s);

  Parameter weight;
  Parameter bias;

 private:
  int64_t dim_ = 0;
  bool has_bias_ = false;
  float eps_ = 1e-5f;
  NormKind kind_ = NormKind::kLayerNorm;
  Tensor x_, mean_, rstd_, y_, dx_;
};

}  // namespace tinylm::nn
