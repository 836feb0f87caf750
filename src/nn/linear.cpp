#include "nn/linear.h"

#include "backend/registry.h"
#include "nn/init.h"
#include "util/error.h"

namespace tinylm::nn {

Shape with_last_dim(const Shape& shape, int64_t last) {
  Shape s = shape;
  s.back() = last;
  return s;
}

Linear::Linear(int64_t in, int64_t out, bool bias)
    : weight({out, in}, /*decay=*/true), in_(in), out_(out), has_bias_(bias) {
  if (bias) this->bias = Parameter({out}, /*decay=*/false);
}

void Linear::init(Rng& rng, float std) {
  init_normal(weight.value, rng, std);
  if (has_bias_) bias.value.zero();
}

Tensor Linear::forward(const Tensor& x, const Context& ctx) {
  require(x.ndim() >= 1 && x.dim(-1) == in_, [&] {
    return "Linear: input " + shape_str(x.shape()) + " does not end in " + std::to_string(in_);
  });
  x_ = x;
  const int64_t n = x.numel() / in_;
  y_.ensure_shape(with_last_dim(x.shape(), out_), x.device());
  const float* b = has_bias_ ? bias.value.data() : nullptr;
  on(x).linear_forward(x.data(), weight.value.data(), b, y_.data(), n, in_, out_);
  if (adapter) adapter->forward_add(x.data(), y_.data(), n, ctx);
  return y_;
}

Tensor Linear::backward(const Tensor& dy) {
  const int64_t n = x_.numel() / in_;
  dx_.ensure_shape(x_.shape(), x_.device());
  on(dy).linear_backward(dy.data(), x_.data(), weight.value.data(), dx_.data(),
                         weight.grad_or_null(), bias.grad_or_null(), n, in_, out_);
  if (adapter) adapter->backward_add(x_.data(), dy.data(), dx_.data(), n);
  return dx_;
}

void Linear::plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& in,
                          const Width& out, const StepShape& s) {
  plan.add_rows(BufferUse::kForward, prefix + ": y", s, out);
  plan.add_rows(BufferUse::kBackward, prefix + ": dx", s, in);
}

void Linear::parameters(ParameterList& list, const std::string& prefix) {
  list.push_back({prefix + "weight", &weight});
  if (has_bias_) list.push_back({prefix + "bias", &bias});
}

}  // namespace tinylm::nn
