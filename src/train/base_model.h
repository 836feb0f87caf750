// The model a fine-tuning run starts from (`--base SRC`), with its tokenizer:
//   - a Hugging Face GPT-2 folder (config.json + model.safetensors): its weights, the
//     GPT-2 tokenizer (what `save_pretrained` of the hub's "gpt2" gives)
//   - a tinylm run folder (or checkpoint file) from `tinylm train`: its weights and tokenizer
//   - a preset name (gpt2-124m, gpt2-355m, ...): that shape, randomly initialised (GPT-2's
//     init, from `seed`), the GPT-2 tokenizer; `model_overrides` (the config's "model"
//     section) changes fields of the shape, e.g. a small GPT for tests and recipes
// The dropout of the returned model is `dropout` (fine-tuning's own setting, not the
// base's). InputError: SRC is none of these, a folder whose tensors do not match its
// config, a tokenizer with more ids than the model's vocabulary, "model" overrides with
// a base that is not a preset.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "model/gpt.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct BaseModel {
  std::unique_ptr<GPT> model;
  std::unique_ptr<Tokenizer> tokenizer;
  std::string kind;  // "hf", "run", "preset"
};

BaseModel load_base_model(const std::string& src, const nlohmann::json& model_overrides,
                          double dropout, uint64_t seed);

// The same model with another dropout (weights copied); the model itself when unchanged.
std::unique_ptr<GPT> with_dropout(std::unique_ptr<GPT> model, double dropout);

}  // namespace tinylm
