// Batches of instruction examples, as the course's collate function (Raschka ch. 7):
//
//   for each sequence s_i (ids of alpaca_text, instruction_data.h), L = max_i |s_i| + 1:
//     padded_i = s_i + [end] + [end] * (L - |s_i| - 1)          [L]   end = pad_id
//     inputs_i  = padded_i[0 : L-1]                             [L-1]
//     targets_i = padded_i[1 : L]                               [L-1]
//     targets_i: every target equal to pad_id after the first one -> kIgnoreTarget (-100)
//                (the first end-of-text stays: the model learns to stop)
//                An entry in a chat template (ends_turn: its ids end with the template's
//                end-of-turn token, which is the one learned to stop at): every target
//                from position |s_i| - 1 on -> kIgnoreTarget, whatever its value
//                (the end-of-turn token may be pad_id and also close the user's turn)
//     mask_prompt: targets_i[j] -> kIgnoreTarget for j < prompt_length_i - 1 (targets
//                that are prompt tokens)
//   then, if allowed_max_length > 0, inputs and targets keep their first
//   allowed_max_length positions.
//   -> Batch (batch.h): inputs [B, T], targets [B, T], T = min(L - 1, allowed_max_length)
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "data/batch.h"
#include "data/instruction_data.h"

namespace tinylm {

struct InstructionCollateOptions {
  int32_t pad_id = 50256;  // GPT-2's <|endoftext|>
  bool mask_prompt = false;
  int64_t allowed_max_length = 0;  // 0 = no cut (the course passes 1024, the context)
};

// The examples `indices` of `examples` as one batch. An empty selection is an error.
Batch collate_instructions(const std::vector<EncodedInstruction>& examples,
                           std::span<const int64_t> indices,
                           const InstructionCollateOptions& options);

// All of `examples`, in order.
Batch collate_instructions(const std::vector<EncodedInstruction>& examples,
                           const InstructionCollateOptions& options);

}  // namespace tinylm
