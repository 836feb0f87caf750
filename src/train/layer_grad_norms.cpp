// Per-block gradient norms (see layer_grad_norms.h).
#include "train/layer_grad_norms.h"

#include <cmath>
#include <string>
#include <string_view>

#include "util/integer_text.h"

namespace tinylm {

namespace {

// The block index of "h.3.attn..." or "transformer.h.3.attn...", or -1.
int64_t block_of(const std::string& name) {
  size_t start;
  if (name.rfind("h.", 0) == 0)
    start = 2;
  else if (name.rfind("transformer.h.", 0) == 0)
    start = 14;
  else
    return -1;
  const size_t end = name.find('.', start);
  if (end == std::string::npos || end == start) return -1;
  return decimal_integer(std::string_view(name).substr(start, end - start)).value_or(-1);
}

}  // namespace

std::vector<double> layer_grad_norms(GPT& model) {
  return layer_grad_norms(model.parameters(), static_cast<int64_t>(model.h.size()));
}

std::vector<double> layer_grad_norms(const ParameterList& params, int64_t n_layer) {
  std::vector<double> sums(static_cast<size_t>(n_layer), 0.0);
  for (const auto& p : params) {
    const int64_t layer = block_of(p.name);
    if (layer < 0 || layer >= n_layer || !p.param->trainable()) continue;
    const Tensor grad = p.param->grad.to(Device::kCpu);  // a copy for other devices
    const float* g = grad.data();
    double s = 0;
    for (int64_t i = 0; i < grad.numel(); ++i) s += static_cast<double>(g[i]) * g[i];
    sums[static_cast<size_t>(layer)] += s;
  }
  for (double& s : sums) s = std::sqrt(s);
  return sums;
}

}  // namespace tinylm
