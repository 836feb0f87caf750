// What a model path or name given on the command line is, told from the files alone
// (nothing is loaded): the first half of opening a model. Every kind is one row of one
// table (model_source_table(), open/model_sources.cpp): how it is recognised, described,
// shaped (its config alone) and opened (open/open_model.h, for every verb;
// `load_base_model` (base_model.h) for train.init_from and finetune --base builds on it).
// A new model family or file format is a new row.
//   - a folder with config.json + model.safetensors: a Hugging Face GPT-2 folder,
//     GPT2LMHeadModel, or GPT2ForSequenceClassification when config.json's
//     "architectures" says so
//   - a folder with hparams.json and model.ckpt.index: OpenAI's original GPT-2 release
//     (model/openai_gpt2.h), with its encoder.json + vocab.bpe
//   - a folder whose config.json has "task" and "finetune": a `tinylm finetune` run
//   - a folder with last.safetensors or best.safetensors: a `tinylm train` run
//   - a file ending in .safetensors: a checkpoint of a `tinylm train` run
//   - a file ending in .gguf: a GGUF file of llama.cpp's gpt2 architecture, with its
//     tokenizer (open/gguf_model.h)
//   - a Hugging Face repo id or GPT-2 short name (openai-community/gpt2, gpt2-medium)
//     that is no path: its snapshot folder in the Hugging Face cache (hub/hub_cache.h),
//     told from its files as above; InputError naming the download that fetches
//     it when the cache does not hold it
//   - anything else that does not exist: a preset name (gpt2-124m ...), checked when
//     the model is built
#pragma once
#include <string>
#include <vector>

#include "model/config.h"
#include "run/run_folder.h"

namespace tinylm {

enum class ModelSourceKind {
  HfLanguageModel,   // GPT2LMHeadModel folder
  HfClassifier,      // GPT2ForSequenceClassification folder
  TrainRun,          // `tinylm train` run folder
  Checkpoint,        // a `tinylm train` checkpoint file
  FinetuneRun,       // `tinylm finetune` run folder (task classify or instruct)
  Preset,            // a preset name
  GgufFile,          // a .gguf file (llama.cpp's gpt2)
  OpenAiCheckpoint,  // OpenAI's original GPT-2 folder (hparams.json + TensorFlow checkpoint)
};

struct ModelSourceInfo {
  ModelSourceKind kind = ModelSourceKind::Preset;
  std::string path;    // the folder, file or preset name as given
  std::string task;    // FinetuneRun: "classify" or "instruct"
  std::string option;  // the flag or field that named it, for messages ("--model")

  bool is_classifier() const {
    return kind == ModelSourceKind::HfClassifier ||
           (kind == ModelSourceKind::FinetuneRun && task == "classify");
  }
};

struct OpenedModel;
struct OpenOptions;

// How a run may start from a source (train.init_from, finetune --base).
enum class BaseUse {
  kModel,    // its language model
  kBody,     // its GPT body (a classifier: a new head is made, as transformers does)
  kRefused,  // not a base (a fine-tuning run)
};

// What a source looks like on disk.
enum class SourceForm { kFolder, kFile, kName };

// One kind of source: one row of the table.
struct ModelSourceRow {
  ModelSourceKind kind;
  SourceForm form;
  // Whether info.path (and info.option, for messages) is of this kind, told from its files;
  // may set info.task. Rows of one form are asked in table order. InputError for a source
  // of this kind that cannot be used (a fine-tuning run with no checkpoint).
  bool (*recognise)(ModelSourceInfo& info);
  // "a Hugging Face GPT-2 folder", "a classify fine-tuning run", ... (describe()).
  std::string (*describe)(const ModelSourceInfo& info);
  // The model's shape from the source's config alone (no weights): model_config_of().
  GPTConfig (*shape)(const ModelSourceInfo& info);
  // The weights, tokenizer and what the source says of itself, into m (m.source is set).
  void (*open)(OpenedModel& m, const OpenOptions& options);
  BaseUse base;
  const char* base_name;  // a run's record of where its base came from ("hf", "run", ...)
};

// Every kind of source, folders first in the order they are recognised.
const std::vector<ModelSourceRow>& model_source_table();
// The row of `kind`.
const ModelSourceRow& model_source_row(ModelSourceKind kind);

// What `src` is (see above). `option` names it in messages ("--model", "--base").
// InputError: an empty name, a folder or file that is none of the above (the message
// lists what would be), a .safetensors file of a fine-tuning run (its folder is the
// source), a fine-tuning run without a checkpoint.
ModelSourceInfo identify_model_source(const std::string& src, const std::string& option);

// "a Hugging Face GPT-2 folder", "a tinylm train run", "a classify fine-tuning run" ...
std::string describe(const ModelSourceInfo& source);

// The shape of a preset; InputError "OPTION NAME: no such file or folder, and <the
// presets>" for an unknown name.
GPTConfig preset_config(const std::string& name, const std::string& option);

// The model's shape, read from the source's config alone (no weights): `tinylm info`.
GPTConfig model_config_of(const ModelSourceInfo& source);

}  // namespace tinylm
