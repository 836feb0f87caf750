#include "nn/norm.h"

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm::nn {

Norm::Norm(int64_t dim, bool bias, float eps, NormKind kind)
    : weight({dim}, /*decay=*/false), dim_(dim), has_bias_(bias), eps_(eps), kind_(kind) {
  require(!(bias && kind == NormKind::kRmsNorm), "RMSNorm has no bias");
  if (bias) this->bias = Parameter({dim}, /*decay=*/false);
  init();
}

void Norm::init() {
  weight.value.fill(1.0f);
  if (has_bias_) bias.value.zero();
}

void Norm::plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& dim,
                        const StepShape& s) {
  plan.add(BufferUse::kForward, prefix + ": y, mean, rstd", "[B, T, " + dim.name + "] + 2 x [B, T]",
           s.rows() * (dim.n + 2));
  plan.add_rows(BufferUse::kBackward, prefix + ": dx", s, dim);
}

Tensor Norm::forward(const Tensor& x) {
  x_ = x;
  forward_into(x, y_, mean_, rstd_);
  return y_;
}

void Norm::forward_into(const Tensor& x, Tensor& y, Tensor& mean, Tensor& rstd) const {
  require(x.dim(-1) == dim_, [&] {
    return "Norm: input " + shape_str(x.shape()) + " does not end in " + std::to_string(dim_);
  });
  const int64_t n = x.numel() / dim_;
  y.ensure_shape(x.shape(), x.device());
  rstd.ensure_shape({n}, x.device());
  if (kind_ == NormKind::kRmsNorm) {
    on(x).rmsnorm_forward(x.data(), weight.value.data(), y.data(), rstd.data(), n, dim_, eps_);
    return;
  }
  mean.ensure_shape({n}, x.device());
  on(x).layernorm_forward(x.data(), weight.value.data(), has_bias_ ? bias.value.data() : nullptr,
                          y.data(), mean.data(), rstd.data(), n, dim_, eps_);
}

Tensor Norm::backward(const Tensor& dy) {
  const int64_t n = x_.numel() / dim_;
  dx_.ensure_shape(x_.shape(), x_.device());
  if (kind_ == NormKind::kRmsNorm)
    on(dy).rmsnorm_backward(dy.data(), x_.data(), weight.value.data(), rstd_.data(), dx_.data(),
                            weight.grad_or_null(), n, dim_);
  else
    on(dy).layernorm_backward(dy.data(), x_.data(), weight.value.data(), mean_.data(), rstd_.data(),
                              dx_.data(), weight.grad_or_null(), bias.grad_or_null(), n, dim_);
  return dx_;
}

void Norm::parameters(ParameterList& list, const std::string& prefix) {
  list.push_back({prefix + "weight", &weight});
  if (has_bias_) list.push_back({prefix + "bias", &bias});
}

}  // namespace tinylm::nn
