// The one place that decides what a run trains, for every task: which parameters (the
// others are frozen: no gradient buffer, no optimizer state, no weight-gradient work;
// backward stops above them), the LoRA adapters, and which tensors get weight decay.
// Trainable sets (finetune.trainable; train.trainable takes all and lora):
//   head     the task head only
//   last:N   the head, the last N transformer blocks and the final LayerNorm (course: N=1)
//   all      every parameter
//   lora     the LoRA adapters (attached separately) and the head given as trainable;
//            every base weight is frozen
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lora/lora.h"
#include "model/classifier.h"
#include "model/gpt.h"
#include "run/train_config.h"
#include "util/rng.h"

namespace tinylm {

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

// A classifier's: the set applied to its body and head (under `lora` the head trains
// unless it carries an adapter; the adapters must be attached first, lora/classifier_lora.h,
// and train only under lora). InputError for lora without adapters.
void apply_trainable(SequenceClassifier& model, const TrainableSet& set);

// Makes exactly the named parameters trainable and freezes the others. InputError
// (naming `what` and the parameter) for a name that is not in the list.
void train_only(const ParameterList& params, const std::vector<std::string>& names,
                const std::string& what);

// A language model's trainable parameters: `set` applied to the model (an untied LM head
// trains under head and last:N; head is refused for a tied head, which is the
// embedding); under lora, adapters on lora.targets (A from rng, B zeros), every base
// weight frozen. `lora` is null except under lora; destroy it before the model.
// `option` names the setting in messages ("finetune.trainable").
struct Trainables {
  std::unique_ptr<LoraSet> lora;
  ParameterList params;  // the model's and the adapters'
};
Trainables choose_lm_trainables(GPT& model, const TrainableSet& set, const LoraConfig& lora,
                                Rng& rng, const std::string& option);

// Weight decay groups. all: every tensor (one group, as torch.optim.AdamW(
// model.parameters()), fine-tuning's default); otherwise matrices only (LoRA's A and B
// too, as PEFT), and embeddings (wte, wpe) only when `embeddings` is set.
struct DecayRule {
  bool all = false;
  bool embeddings = true;
};
void set_decay(const ParameterList& params, const DecayRule& rule);

// `tinylm train`'s: train.trainable (all, or lora with adapters from seed + 3), decay on
// matrices and, with train.decay_embeddings, on the embeddings.
Trainables choose_trainables(GPT& model, const TrainConfig& config);

}  // namespace tinylm
