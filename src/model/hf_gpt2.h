// Hugging Face GPT-2 interop: a folder with config.json + model.safetensors, as
// GPT2LMHeadModel.save_pretrained writes it.
//   - Conv1D weights (attn.c_attn, attn.c_proj, mlp.c_fc, mlp.c_proj) are stored [in, out];
//     tinylm keeps [out, in], so import and export transpose them.
//   - Names may carry the "transformer." prefix or not; lm_head.weight is absent when tied.
//   - HF's GPT-2 always has every bias and a learned position table, pre-LN blocks.
//     Export writes zero biases for a tinylm model without them (same function) and
//     keeps the exact tinylm config under "tinylm_config" in config.json, which HF
//     ignores and import uses, so import -> export -> import is bit-identical.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/gpt.h"

namespace tinylm {

// HF config.json -> GPTConfig (throws InputError naming the field on bad values).
GPTConfig config_from_hf(const nlohmann::json& hf);
// GPT-2's <|endoftext|>: the end of text of a folder read with GPT-2's tokenizer.
inline constexpr int32_t kGpt2EndOfText = 50256;

// config.json of c; bos_token_id and eos_token_id are eot, left out when eot < 0 (a
// vocabulary without an end-of-text token).
nlohmann::json config_to_hf(const GPTConfig& c, int32_t eot);

// Loads DIR/config.json and DIR/model.safetensors.
std::unique_ptr<GPT> load_hf_gpt2(const std::string& dir);

// Writes DIR/config.json (bos and eos eot, none when eot < 0) and DIR/model.safetensors
// (atomically; creates DIR, replacing a symbolic link there: files/create_own_folder).
void save_hf_gpt2(GPT& model, const std::string& dir, int32_t eot = kGpt2EndOfText);

// Writes DIR/generation_config.json as save_pretrained does for a model that generates:
// bos and eos are the tokenizer's <|endoftext|> id (none when eot < 0).
void write_hf_generation_config(int32_t eot, const std::string& dir);

// The tensors save_hf_gpt2 writes: HF names and layout, zero biases where tinylm has none
// (for writers of other HF architectures built on the same body).
std::vector<std::pair<std::string, Tensor>> hf_tensors(GPT& model);

// The HF name of a tinylm parameter ("h.0.ln_1.weight" -> "transformer.h.0.ln_1.weight";
// the llama family's "layers.0.mlp.up_proj.weight" -> "model.layers.0.mlp.up_proj.weight"),
// and a tensor of that parameter in HF's layout (GPT-2's Conv1D weights transposed).
std::string hf_param_name(const std::string& name);
Tensor to_hf_layout(const std::string& name, const Tensor& value);

// Is `dir` a folder with config.json and model.safetensors?
bool is_hf_model_dir(const std::string& dir);

}  // namespace tinylm
