// The model a "look inside" verb (attention, embeddings, trace) works on: a trained run
// (--run: its checkpoint and tokenizer) or a Hugging Face GPT-2 folder (--model: the
// GPT-2 tokenizer). Exactly one of the two paths is non-empty, else InputError.
#pragma once
#include <memory>
#include <string>

#include "model/gpt.h"
#include "tokenizer/tokenizer.h"

namespace tinylm::cli {

struct ModelSource {
  std::unique_ptr<GPT> model;
  std::unique_ptr<Tokenizer> tokenizer;
  std::string name;       // the path it came from, for titles
  bool addition = false;  // a run trained on the addition task
};

ModelSource load_model_source(const std::string& run, const std::string& hf_dir);

}  // namespace tinylm::cli
