// From GPT-2 to Llama, one change at a time (the course's "GPT to Llama" chapter, and
// `tinylm demo gpt-to-llama`). The walk starts at GPT-2 124M as the course's GPTModel
// builds it (an untied output head, no q/k/v bias: 163,009,536 parameters) and changes
// one thing per step:
//   LayerNorm -> RMSNorm, learned positions -> RoPE, the remaining biases dropped,
//   GELU MLP -> SwiGLU (intermediate size 2/3 of 4C keeps the count), multi-head ->
//   grouped-query attention, untied -> tied head;
// then it ends at released shapes (the presets smollm2-135m and llama-3.2-1b, whose
// counts are the published ones). The steps in between are no family of their own (a
// config is gpt2 or llama), so a step is described by what nn/ builds: one block's
// nn::BlockConfig and the model's ends. Every count comes from modules built from it:
// the parameters are those of a real TransformerBlock and Norm, the matmul FLOPs twice
// the block's weight matrices plus attention's 4 * T * H * D and the head's 2 * C * V,
// as report/flops.h counts them (tests/course/gpt_to_llama_test.cpp holds the released
// shapes to the report's tables).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "nn/block_config.h"

namespace tinylm::course {

struct ArchStep {
  std::string change;  // "LayerNorm -> RMSNorm", or the released model's name
  nn::BlockConfig block;
  int64_t n_layer = 0, vocab = 0;
  bool learned_positions = true;  // a [context, C] table, else RoPE (nothing trained)
  bool tied_head = true;
};

struct StepCounts {
  int64_t params = 0;
  int64_t flops_per_token = 0;     // forward matmuls at context T (report/flops.h)
  int64_t kv_bytes_per_token = 0;  // float32 keys and values: 2 x L x KV x D x 4
};

// A released model's config as a step (its own name as the change).
ArchStep step_of(const GPTConfig& c, std::string change);

// The walk above: the course's GPT-2 124M, six changes, then SmolLM2-135M and
// Llama-3.2-1B.
std::vector<ArchStep> gpt_to_llama_steps();

// Counted from modules built for `step` (one block at a time), T the context of the
// attention FLOPs and of a learned position table.
StepCounts count_step(const ArchStep& step, int64_t T);

// The table the demo prints: per step its change, parameters (and the difference from
// the step before), FLOPs per token, KV-cache bytes per token.
std::string format_gpt_to_llama(const std::vector<ArchStep>& steps, int64_t T);

}  // namespace tinylm::course
