// The attention weights of every layer for one forward pass, as a figure or the entropy
// table reads them (report/figures.h attention_grid_svg, report/attention_entropy.h):
//   ids [T] (1 <= T <= block_size) -> A[l] [1, H, T, T], l = 0 .. n_layer - 1
// Row q of A[l][h] is query position q's weights over the keys 0..q (causal: 0 beyond q),
// from model.forward in inference mode (no dropout). Text labels are the caller's.
#pragma once
#include <cstdint>
#include <vector>

#include "model/gpt.h"

namespace tinylm::report {

// InputError for an empty input or one longer than the context.
std::vector<Tensor> attention_maps(GPT& model, const std::vector<int32_t>& ids);

}  // namespace tinylm::report
