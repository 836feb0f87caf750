// Per-block gradient norms (see layer_grad_norms.h).
#include "train/layer_grad_norms.h"

#include <limits>
#include <string>
#include <string_view>

#include "backend/registry.h"
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

// Each block's norm where its gradients are, as clipping's global norm over the block's
// spans (squares summed in double) with no limit, so nothing is scaled: on a GPU one
// short launch and one number back per block (copying every gradient to the host took a
// logged step of the Shakespeare recipe 15 ms).
std::vector<double> layer_grad_norms(const ParameterList& params, int64_t n_layer) {
  std::vector<std::vector<ops::GradSpan>> spans(static_cast<size_t>(n_layer));
  Device device = Device::kCpu;
  for (const auto& p : params) {
    const int64_t layer = block_of(p.name);
    if (layer < 0 || layer >= n_layer || !p.param->trainable()) continue;
    spans[static_cast<size_t>(layer)].push_back({p.param->grad.data(), p.param->grad.numel()});
    device = p.param->grad.device();
  }
  const double no_limit = std::numeric_limits<double>::infinity();
  std::vector<double> norms;
  for (const auto& block : spans)
    norms.push_back(backend_for(device).clip_grad_norm(block, no_limit));
  return norms;
}

}  // namespace tinylm
