#include "report/greedy_trace.h"

#include <string>

#include "util/error.h"

namespace tinylm::report {

GreedyTrace trace_greedy(GPT& model, const std::vector<int32_t>& ids, int64_t max_tokens,
                         int64_t layer, int64_t top_attended, int32_t stop_id) {
  const GPTConfig& c = model.config();
  require(layer >= 0 && layer < c.n_layer, "trace_greedy: the model has no block " +
                                               std::to_string(layer) + " (blocks 0.." +
                                               std::to_string(c.n_layer - 1) + ")");
  require(top_attended > 0, "trace_greedy: top_attended must be positive");
  GreedyTrace out;
  out.ids = ids;
  for (int64_t step = 0; step < max_tokens; ++step) {
    if (static_cast<int64_t>(out.ids.size()) > c.block_size) {
      out.context_full = true;
      break;
    }
    const Trace trace = trace_input(model, out.ids, /*dims=*/1, /*top_k=*/1);
    GreedyStep s;
    s.query = static_cast<int64_t>(out.ids.size()) - 1;
    s.next = trace.top_next[0];
    for (int64_t h = 0; h < trace.blocks[layer].attention.dim(0); ++h)
      s.heads.push_back(most_attended(trace, layer, h, s.query, top_attended));
    out.steps.push_back(std::move(s));
    if (out.steps.back().next.id == stop_id) break;
    out.ids.push_back(out.steps.back().next.id);
  }
  return out;
}

}  // namespace tinylm::report
