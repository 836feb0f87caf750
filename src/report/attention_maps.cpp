#include "report/attention_maps.h"

#include <string>

#include "util/error.h"

namespace tinylm::report {

std::vector<Tensor> attention_maps(GPT& model, const std::vector<int32_t>& ids) {
  const auto T = static_cast<int64_t>(ids.size());
  const int64_t block_size = model.config().block_size;
  require(T > 0, "attention maps: the input has no tokens");
  require(T <= block_size, "the input is " + std::to_string(T) +
                               " tokens, more than the model's context (block_size " +
                               std::to_string(block_size) + ")");
  model.forward(ids.data(), 1, T);  // inference: every block keeps its A [1, H, T, T]
  std::vector<Tensor> maps;
  for (auto& block : model.h) maps.push_back(block.attn.attention().clone());
  return maps;
}

}  // namespace tinylm::report
