// One Hugging Face language-model folder, whichever family config.json's model_type
// names: gpt2 (model/hf_gpt2.h) or llama, qwen2, qwen3 (model/hf_llama.h).
#pragma once
#include <memory>
#include <string>

#include "model/gpt.h"

namespace tinylm {

// Does DIR hold a llama-family config.json (model_type llama, qwen2 or qwen3)?
bool is_hf_llama_dir(const std::string& dir);

// Loads DIR as its model_type says.
std::unique_ptr<GPT> load_hf_lm(const std::string& dir);

// Writes DIR/config.json and DIR/model.safetensors in the model's family's layout:
// GPT2LMHeadModel, or the llama family's (model/hf_llama.h).
void save_hf_lm(GPT& model, const std::string& dir, int32_t eot);

}  // namespace tinylm
