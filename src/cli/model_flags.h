// --run and --model, the flags by which a verb names the model it reads. Both take any
// source open/open_model.h knows (a run folder, a checkpoint, a fine-tuning run, a
// Hugging Face GPT-2 or classifier folder, a GGUF file, a preset); --run is the name users of
// `tinylm train` know, --model the one users of Hugging Face folders know.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "open/open_model.h"
#include "util/error.h"

namespace tinylm::cli {

struct ModelFlags {
  std::string run, model;
};

inline constexpr const char* kModelSourceHelp =
    "a run folder, a checkpoint (.safetensors), a fine-tuning run, a Hugging Face folder "
    "(GPT-2, Llama, Qwen2, Qwen3), a GGUF file (.gguf: llama.cpp's gpt2, llama, qwen2, qwen3) or a "
    "preset (gpt2-124m ...)";

// Adds --run and --model (excluding each other) to `app`.
inline void add_model_flags(CLI::App& app, ModelFlags& flags) {
  auto* run = app.add_option("--run", flags.run, std::string("the model: ") + kModelSourceHelp);
  app.add_option("--model", flags.model, "the same as --run")->excludes(run);
}

inline bool has_model(const ModelFlags& flags) {
  return !flags.run.empty() || !flags.model.empty();
}

// Opens the model the flags name (InputError when neither is given).
inline OpenedModel open_model(const ModelFlags& flags, OpenOptions options = {}) {
  if (!flags.run.empty()) {
    options.option = "--run";
    return tinylm::open_model(flags.run, options);
  }
  options.option = "--model";
  if (flags.model.empty())
    throw InputError("pass --run or --model: " + std::string(kModelSourceHelp));
  return tinylm::open_model(flags.model, options);
}

}  // namespace tinylm::cli
