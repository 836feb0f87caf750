// Counting and selecting trainable parameters (see parameter.h).
#include "tensor/parameter.h"

#include <set>

namespace tinylm {

ParameterCounts count_parameters(const ParameterList& params) {
  ParameterCounts c;
  std::set<const Parameter*> seen;  // a tied tensor counts once
  for (const auto& p : params) {
    if (!seen.insert(p.param).second) continue;
    (p.param->trainable() ? c.trainable : c.frozen) += p.param->value.numel();
  }
  return c;
}

ParameterList trainable_only(const ParameterList& params) {
  ParameterList out;
  for (const auto& p : params)
    if (p.param->trainable()) out.push_back(p);
  return out;
}

void move_parameters(const ParameterList& params, Device device) {
  for (const auto& p : params) p.param->to(device);
}

}  // namespace tinylm
