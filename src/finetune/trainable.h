// Which parameters a fine-tuning run trains; the others are frozen (no gradient buffer,
// no optimizer state, no weight-gradient work; backward stops above them).
//   head     the task head only
//   last:N   the head, the last N transformer blocks and the final LayerNorm (course: N=1)
//   all      every parameter
//   lora     the LoRA adapters (attached separately) and the head given as trainable;
//            every base weight is frozen
#pragma once
#include <string>
#include <vector>

#include "model/gpt.h"

namespace tinylm::finetune {

enum class TrainableKind { Head, LastBlocks, All, Lora };

struct TrainableSet {
  TrainableKind kind = TrainableKind::LastBlocks;
  int64_t last_blocks = 1;  // N of last:N

  // "head", "last:N" (N >= 0), "all", "lora"; InputError naming the spec otherwise.
  static TrainableSet parse(const std::string& spec);
  std::string to_string() const;
};

// Freezes every parameter of the body, then makes trainable what the set names: `head`
// are the task head's parameters (under lora, pass the head's parameters only if the
// head trains fully, i.e. carries no adapter). InputError if last:N exceeds the blocks.
void apply_trainable(GPT& body, const ParameterList& head, const TrainableSet& set);

// Makes exactly the named parameters trainable and freezes the others. InputError
// (naming `what` and the parameter) for a name that is not in the list.
void train_only(const ParameterList& params, const std::vector<std::string>& names,
                const std::string& what);

}  // namespace tinylm::finetune
