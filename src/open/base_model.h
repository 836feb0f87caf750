// The model a run starts from (`tinylm finetune --base SRC`, `tinylm train` with
// train.init_from), with its tokenizer:
//   - a Hugging Face GPT-2 folder (config.json + model.safetensors): its weights, the
//     GPT-2 tokenizer (what `save_pretrained` of the hub's "gpt2" gives)
//   - OpenAI's GPT-2 folder (hparams.json + model.ckpt.*): its weights, its encoder.json +
//     vocab.bpe; a repo id or GPT-2 name in the Hugging Face cache: that snapshot
//   - a tinylm run folder (or checkpoint file) from `tinylm train`: its weights and tokenizer
//   - a preset name (gpt2-124m, gpt2-355m, ...): that shape, randomly initialised (GPT-2's
//     init, from `seed`), the GPT-2 tokenizer; `model_overrides` (the config's "model"
//     section) changes fields of the shape, e.g. a small GPT for tests and recipes
// The dropout of the returned model is `dropout` (fine-tuning's own setting, not the
// base's); a negative `dropout` keeps the base's (no copy of the weights). InputError: SRC is none
// of these, a folder whose tensors do not match its config, a tokenizer with more ids than the
// model's vocabulary, "model" overrides with a base that is not a preset.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/gpt.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct BaseModel {
  std::unique_ptr<GPT> model;
  std::unique_ptr<Tokenizer> tokenizer;
  std::string kind;  // "hf", "openai", "run", "preset", "gguf"
};

// `option` names SRC in messages ("--base", "train.init_from").
BaseModel load_base_model(const std::string& src, const nlohmann::json& model_overrides,
                          double dropout, uint64_t seed, const std::string& option = "--base");

// The same model with another dropout (weights copied); the model itself when unchanged.
std::unique_ptr<GPT> with_dropout(std::unique_ptr<GPT> model, double dropout);

// The model a run trains when it starts from `base` (`tinylm train` with train.init_from):
// the base's shape, with the user's dropout and attn_dropout, and the user's block_size
// when it is smaller (learned positions are then cropped). InputError naming the field
// ("model.n_layer is 4 but <what> has 12") for any other field the user set to a value
// that is neither the default nor the base's.
GPTConfig config_from_base(const GPTConfig& user, const GPTConfig& base, const std::string& what);

// Copies every weight of `from` into `to` (a model of config_from_base's config): as is,
// except the learned positions, of which the first to.block_size rows are kept.
void copy_base_weights(GPT& from, GPT& to);

}  // namespace tinylm
