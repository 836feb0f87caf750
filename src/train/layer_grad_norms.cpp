// Per-block gradient norms (see layer_grad_norms.h).
#include "train/layer_grad_norms.h"

#include <cmath>
#include <string>

namespace tinylm {

std::vector<double> layer_grad_norms(GPT& model) {
  std::vector<double> sums(model.h.size(), 0.0);
  for (const auto& p : model.parameters()) {
    if (p.name.rfind("h.", 0) != 0) continue;
    const size_t layer = std::stoul(p.name.substr(2, p.name.find('.', 2) - 2));
    const float* g = p.param->grad.data();
    double s = 0;
    for (int64_t i = 0; i < p.param->grad.numel(); ++i) s += static_cast<double>(g[i]) * g[i];
    sums[layer] += s;
  }
  for (double& s : sums) s = std::sqrt(s);
  return sums;
}

}  // namespace tinylm
