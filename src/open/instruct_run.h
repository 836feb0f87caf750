// A finished (or checkpointed) instruction fine-tuning run, read back for
// `tinylm respond` and `tinylm eval`, and the loss over an instruction split.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "data/instruction_collate.h"
#include "data/instruction_data.h"
#include "lora/lora.h"
#include "model/gpt.h"
#include "run/checkpoint.h"
#include "run/finetune_config.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct InstructRun {
  FinetuneConfig config;
  std::unique_ptr<GPT> model;
  std::unique_ptr<LoraSet> lora;  // the adapters of a lora run, attached to model
  std::unique_ptr<Tokenizer> tokenizer;
  int64_t step = 0;
};

// RUN/last.safetensors with the config and tokenizer in it. InputError if RUN is not a
// finetune run of task instruct (a classify run names `tinylm classify`).
// Every InputError names the checkpoint.
InstructRun load_instruct_run(const std::string& dir, const std::string& verb);
// The same from a checkpoint's state already read (path names it in messages).
InstructRun read_instruct_run(const CheckpointState& state, const std::string& path);

// The collate settings of a run: pad = <|endoftext|>, mask_prompt, cut at
// min(allowed_max_length, block_size) (0 = block_size).
InstructionCollateOptions collate_options(const FinetuneSettings& f, const Tokenizer& tokenizer,
                                          int64_t block_size);

// The course's calc_loss_loader: the mean over batches (in order, batch_size entries
// each, the last one smaller) of each batch's mean token loss; at most max_batches
// batches (<= 0: all) are read. A batch with no supervised target (every response cut
// by allowed_max_length or masked) has no loss and is left out of the mean rather than
// counted as 0; nullopt when no batch read has one (an empty set included).
std::optional<double> supervised_instruction_loss(GPT& model, const InstructionSet& set,
                                                  const InstructionCollateOptions& collate,
                                                  int64_t batch_size, int64_t max_batches);
// The same as a number: NaN when there is no supervised target.
double instruction_loss(GPT& model, const InstructionSet& set,
                        const InstructionCollateOptions& collate, int64_t batch_size,
                        int64_t max_batches);

// Whether any entry of the set keeps a target the loss is taken on once collated (an
// entry's targets do not depend on the batch it is in).
bool has_supervised_target(const InstructionSet& set, const InstructionCollateOptions& collate);

}  // namespace tinylm
