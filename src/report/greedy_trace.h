// Greedy generation one token at a time, traced (`tinylm trace --answer`): for each
// generated token, the position whose logits chose it, its probability, and the input
// positions each head of one block attends to most from there, i.e. where the answer is
// read from. Each step is report/trace.h's trace_input of the ids so far:
//   ids [T0] -> step s: query = T0 + s - 1, next = the most probable token after ids,
//               heads[h] = most_attended(trace, layer, h, query, top_attended)
//               then ids += next, unless next is stop_id
// It stops after max_tokens steps, at stop_id, or when ids no longer fit the context.
#pragma once
#include <cstdint>
#include <vector>

#include "model/gpt.h"
#include "report/trace.h"

namespace tinylm::report {

struct GreedyStep {
  int64_t query = 0;      // the position that predicts the token
  TokenProbability next;  // the token chosen (argmax) and its probability
  std::vector<std::vector<AttendedPosition>> heads;  // [H][top_attended], heaviest first
};

struct GreedyTrace {
  std::vector<int32_t> ids;       // the input, then the generated tokens (stop_id not added)
  std::vector<GreedyStep> steps;  // one per generated token, stop_id's included
  bool context_full = false;      // stopped because ids outgrew the context (block_size)
};

// InputError for an input that is empty or longer than the context, or a layer the model
// does not have; top_attended must be positive. stop_id -1: no stop token.
GreedyTrace trace_greedy(GPT& model, const std::vector<int32_t>& ids, int64_t max_tokens,
                         int64_t layer, int64_t top_attended, int32_t stop_id = -1);

}  // namespace tinylm::report
