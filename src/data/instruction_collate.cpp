// The course's instruction collate; see instruction_collate.h.
#include "data/instruction_collate.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "util/error.h"

namespace tinylm {

namespace {

// Every target equal to pad_id after the first one: the first end-of-text is learned.
void ignore_padding(std::vector<int32_t>& targets, int32_t pad_id) {
  bool seen_end = false;
  for (int32_t& t : targets) {
    if (t != pad_id) continue;
    if (seen_end) t = kIgnoreTarget;
    seen_end = true;
  }
}

}  // namespace

Batch collate_instructions(const std::vector<EncodedInstruction>& examples,
                           std::span<const int64_t> indices, const InstructionCollateOptions& o) {
  require(!indices.empty(), "instruction batch: no examples");
  require(o.allowed_max_length >= 0, "allowed_max_length must be >= 0 (0 = no cut)");
  int64_t longest = 0;
  for (int64_t i : indices) {
    if (i < 0 || i >= static_cast<int64_t>(examples.size()))
      throw std::out_of_range("instruction batch: example " + std::to_string(i) +
                              " outside the split");
    longest = std::max<int64_t>(longest, examples[i].ids.size());
  }
  const int64_t L = longest + 1;  // every sequence gets one end-of-text
  Batch b;
  b.B = static_cast<int64_t>(indices.size());
  b.T = o.allowed_max_length > 0 ? std::min(L - 1, o.allowed_max_length) : L - 1;
  b.inputs.reserve(b.B * b.T);
  b.targets.reserve(b.B * b.T);
  std::vector<int32_t> padded(L);
  for (int64_t i : indices) {
    const EncodedInstruction& e = examples[i];
    std::fill(std::copy(e.ids.begin(), e.ids.end(), padded.begin()), padded.end(), o.pad_id);
    std::vector<int32_t> targets(padded.begin() + 1, padded.end());  // [L-1]
    if (e.ends_turn) {  // the ids end with their end-of-turn token: no target after it
      const auto n = static_cast<int64_t>(e.ids.size());
      for (int64_t j = std::max<int64_t>(n - 1, 0); j < L - 1; ++j) targets[j] = kIgnoreTarget;
    } else {
      ignore_padding(targets, o.pad_id);
    }
    if (o.mask_prompt)
      for (int64_t j = 0; j < std::min<int64_t>(e.prompt_length - 1, L - 1); ++j)
        targets[j] = kIgnoreTarget;
    b.inputs.insert(b.inputs.end(), padded.begin(), padded.begin() + b.T);
    b.targets.insert(b.targets.end(), targets.begin(), targets.begin() + b.T);
  }
  return b;
}

Batch collate_instructions(const std::vector<EncodedInstruction>& examples,
                           const InstructionCollateOptions& options) {
  std::vector<int64_t> all(examples.size());
  std::iota(all.begin(), all.end(), 0);
  return collate_instructions(examples, all, options);
}

}  // namespace tinylm
