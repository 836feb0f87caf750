#include "nn/positional_encoding.h"

#include <cmath>
#include <cstring>

#include "backend/registry.h"
#include "nn/init.h"
#include "util/error.h"

namespace tinylm::nn {

Tensor sinusoidal_table(int64_t max_len, int64_t dim) {
  Tensor pe = Tensor::empty({max_len, dim});
  for (int64_t p = 0; p < max_len; ++p) {
    for (int64_t i = 0; i < dim / 2; ++i) {
      const double angle = static_cast<double>(p) / std::pow(10000.0, 2.0 * i / dim);
      pe[p * dim + 2 * i] = static_cast<float>(std::sin(angle));
      pe[p * dim + 2 * i + 1] = static_cast<float>(std::cos(angle));
    }
  }
  return pe;
}

PositionalEncoding::PositionalEncoding(int64_t max_len, int64_t dim, bool learned)
    : max_len_(max_len), dim_(dim), learned_(learned) {
  if (learned) {
    weight = Parameter({max_len, dim}, /*decay=*/true);
  } else {
    weight.value = sinusoidal_table(max_len, dim);
  }
}

void PositionalEncoding::init(Rng& rng, float std) {
  if (learned_) init_normal(weight.value, rng, std);
}

Tensor PositionalEncoding::forward(int64_t start, int64_t T) {
  require(start >= 0 && start + T <= max_len_, [&] {
    return "positions " + std::to_string(start) + ".." + std::to_string(start + T - 1) +
           " exceed the context length " + std::to_string(max_len_);
  });
  start_ = start;
  y_.ensure_shape({T, dim_}, weight.value.device());
  on(weight.value).copy(weight.value.data() + start * dim_, y_.data(), T * dim_);
  return y_;
}

void PositionalEncoding::backward(const Tensor& dpe) {
  if (!learned_ || !weight.trainable()) return;
  float* g = weight.grad.data() + start_ * dim_;
  on(dpe).add(g, dpe.data(), g, dpe.numel());
}

void PositionalEncoding::plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& dim,
                                      const StepShape& s) {
  plan.add(BufferUse::kForward, prefix + ": y", "[T, " + dim.name + "]", s.T * dim.n);
}

void PositionalEncoding::parameters(ParameterList& list, const std::string& prefix) {
  if (learned_) list.push_back({prefix + "weight", &weight});
}

}  // namespace tinylm::nn
