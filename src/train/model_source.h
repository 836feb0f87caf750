// What a model path or name given on the command line is, told from the files alone
// (nothing is loaded): the first half of opening a model. `open/open_model.h` builds
// on it for every verb; `load_base_model` (base_model.h) for train.init_from and
// finetune --base.
//   - a folder with config.json + model.safetensors: a Hugging Face GPT-2 folder,
//     GPT2LMHeadModel, or GPT2ForSequenceClassification when config.json's
//     "architectures" says so
//   - a folder with hparams.json and model.ckpt.index: OpenAI's original GPT-2 release
//     (model/openai_gpt2.h), with its encoder.json + vocab.bpe
//   - a folder whose config.json has "task" and "finetune": a `tinylm finetune` run
//   - a folder with last.safetensors or best.safetensors: a `tinylm train` run
//   - a file ending in .safetensors: a checkpoint of a `tinylm train` run
//   - a file ending in .gguf: a GGUF file of llama.cpp's gpt2 architecture, with its
//     tokenizer (train/gguf_model.h)
//   - a Hugging Face repo id or GPT-2 short name (openai-community/gpt2, gpt2-medium)
//     that is no path: its snapshot folder in the Hugging Face cache (hub/hub_cache.h),
//     told from its files as above; InputError naming the download that fetches
//     it when the cache does not hold it
//   - anything else that does not exist: a preset name (gpt2-124m ...), checked when
//     the model is built
#pragma once
#include <string>

#include "model/config.h"

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

// What `src` is (see above). `option` names it in messages ("--model", "--base").
// InputError: an empty name, a folder or file that is none of the above (the message
// lists what would be), a .safetensors file of a fine-tuning run (its folder is the
// source), a fine-tuning run without a checkpoint.
ModelSourceInfo identify_model_source(const std::string& src, const std::string& option);

// "a Hugging Face GPT-2 folder", "a tinylm train run", "a classify fine-tuning run" ...
std::string describe(const ModelSourceInfo& source);

// The task of the `tinylm finetune` run in `dir` ("classify" / "instruct"), or "" when
// `dir` is not one (no readable config.json with "task" and "finetune").
std::string finetune_task_of(const std::string& dir);

// The shape of a preset; InputError "OPTION NAME: no such file or folder, and <the
// presets>" for an unknown name.
GPTConfig preset_config(const std::string& name, const std::string& option);

// The model's shape, read from the source's config alone (no weights): `tinylm info`.
GPTConfig model_config_of(const ModelSourceInfo& source);

}  // namespace tinylm
