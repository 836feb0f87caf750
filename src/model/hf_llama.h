// Hugging Face interop for the llama family: folders whose config.json names
// LlamaForCausalLM (Llama 3.x, SmolLM2, TinyLlama), Qwen2ForCausalLM (Qwen2.5) or
// Qwen3ForCausalLM, as save_pretrained writes them:
//   - config.json: hidden_size, intermediate_size, num_hidden_layers,
//     num_attention_heads, num_key_value_heads, head_dim, rms_norm_eps, rope_theta and
//     rope_scaling (transformers 4's top-level keys, or transformers 5's rope_parameters),
//     max_position_embeddings, vocab_size, tie_word_embeddings, attention_bias (Qwen2's
//     q/k/v biases are always on; Qwen3 always has q/k norms);
//   - model.safetensors, or shards listed by model.safetensors.index.json, in float32,
//     bfloat16 or float16, named "model.embed_tokens.weight", "model.layers.N.self_attn.
//     q_proj.weight", ..., "lm_head.weight" (absent when tied). Linear weights are [out, in],
//     tinylm's layout: the names are tinylm's with "model." in front.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/gpt.h"

namespace tinylm {

// Does config.json's model_type name the llama family ("llama", "qwen2", "qwen3")?
bool is_llama_family_config(const nlohmann::json& hf);

// HF config.json -> GPTConfig (arch llama); InputError naming the field on bad values.
GPTConfig llama_config_from_hf(const nlohmann::json& hf);

// config.json of c as the architecture that expresses it: Qwen3ForCausalLM (q/k norms),
// Qwen2ForCausalLM (q/k/v biases) or LlamaForCausalLM; bos and eos eot (none when < 0).
// InputError for q/k norms with q/k/v biases (Qwen3's attention_bias biases o_proj too).
nlohmann::json llama_config_to_hf(const GPTConfig& c, int32_t eot);

// Writes DIR/config.json and DIR/model.safetensors (float32, atomically; creates DIR).
void save_hf_llama(GPT& model, const std::string& dir, int32_t eot);

// Loads DIR/config.json and DIR's safetensors (one file or shards); InputError naming a
// missing or misshapen tensor.
std::unique_ptr<GPT> load_hf_llama(const std::string& dir);

}  // namespace tinylm
