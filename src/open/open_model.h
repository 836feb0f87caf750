// One way to open a model, for every verb that reads one (sample, generate, eval,
// respond, classify, attention, trace, embeddings, lora merge; info reads the shape
// alone through open/model_source.h). The source is a path or a name, told apart by
// identify_model_source (open/model_source.h):
//   Hugging Face GPT-2 folder    lm, the GPT-2 tokenizer (from gpt2_vocab_dir)
//   HF classifier folder         classifier, the GPT-2 tokenizer
//   tinylm train run/checkpoint  lm (a LoRA run's adapters merged), its tokenizer and
//                                TrainConfig
//   instruct fine-tuning run     lm (LoRA adapters attached), its tokenizer and config
//   classify fine-tuning run     classifier, its tokenizer, config, padded length, pad id
//   preset                       lm of that shape, GPT-2 init from preset_seed, GPT-2 BPE
// A verb that needs a language model or a classifier asks with language_model() or
// classifier(), which say plainly which verb the other kind needs.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "lora/lora.h"
#include "model/classifier.h"
#include "model/gpt.h"
#include "open/model_source.h"
#include "run/finetune_config.h"
#include "run/train_config.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct OpenOptions {
  std::string option = "--model";  // names the source in messages
  std::string gpt2_vocab_dir;      // encoder.json + vocab.bpe for HF folders and presets
                                   // ("": the GPT-2 files shipped in data/)
  uint64_t preset_seed = 1337;     // a preset's random init
  nlohmann::json preset_fields;    // a preset's shape changed by these GPTConfig fields (a
                                   // run's "model" section); null: the preset as it is
};

struct OpenedModel {
  ModelSourceInfo source;
  std::unique_ptr<GPT> lm;                         // every kind but classifiers
  std::unique_ptr<SequenceClassifier> classifier;  // the classifier kinds
  std::unique_ptr<LoraSet> lora;  // an instruct run's adapters on lm (after lm: goes first)
  std::unique_ptr<Tokenizer> tokenizer;
  std::optional<TrainConfig> train_config;        // train runs and checkpoints
  std::optional<FinetuneConfig> finetune_config;  // fine-tuning runs
  int64_t step = 0;                               // the checkpoint's step (runs)
  std::string checkpoint;  // the file the weights came from ("" for a preset)
  int64_t max_length = 0;  // classifiers: texts are cut and padded to this (0: not padded)
  int32_t pad_id = 0;      // classifiers: the padding id
  // The decode weights (decode/decode_weights.h) that keep a GGUF file's own precision: q8_0
  // for a Q8_0 file, f16 for F16, bf16 for BF16; f32 for every other source.
  decode::DecodeWeights stored_decode_weights = decode::DecodeWeights::kF32;

  // The transformer: the language model, or the classifier's body.
  GPT& gpt() { return lm ? *lm : classifier->body(); }
  // The language model; InputError naming `verb` for a classifier (use tinylm classify).
  GPT& language_model(const std::string& verb);
  // The classifier; InputError naming `verb` for a language model.
  SequenceClassifier& classifier_model(const std::string& verb);
  // Folds an instruct run's attached LoRA adapters into lm and removes them.
  void merge_adapters();
  // The language model moved to `device` (--device), an instruct run's adapters folded
  // in first when it is not the CPU. InputError when the device is not there, and for
  // classifiers on another device than the CPU (they run on the CPU for now).
  void to(Device device);
  // A run of the three-digit addition task (its answers are read digit by digit).
  bool is_addition() const { return train_config && train_config->data.task == "addition"; }
  // "tests/fixtures/gpt2-tiny (a Hugging Face GPT-2 folder)", for titles and messages.
  std::string title() const;
};

// InputError for a source that is none of the kinds above, or is broken.
OpenedModel open_model(const std::string& source, const OpenOptions& options = {});
// The same for a source already identified (identify_model_source).
OpenedModel open_model(const ModelSourceInfo& source, const OpenOptions& options);

}  // namespace tinylm
