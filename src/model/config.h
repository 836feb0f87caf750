// GPTConfig: every architectural choice of a decoder-only transformer language model.
// JSON form (field names as below) is what configs/*.json hold under "model" and what
// checkpoints carry; from_json rejects unknown fields and validate() rejects
// inconsistent ones, each with a message naming the field.
// Two families (`arch`), each a row of kFamilies in config.cpp with the fields it takes:
//   gpt2  (default): LayerNorm, learned or sinusoidal positions, GELU/ReLU MLP, biases
//   llama (Llama 3.x, SmolLM2, Qwen2.5, Qwen3): RMSNorm, rotary positions (RoPE),
//         SwiGLU MLP, grouped-query attention, no biases but Qwen2's q/k/v ones
//         (attention_bias), Qwen3's per-head q/k RMSNorm (qk_norm)
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "nn/block_config.h"
#include "ops/activation.h"
#include "ops/rope.h"

namespace tinylm {

enum class Arch { Gpt2, Llama };
// Rotary: the llama family's, applied to q and k inside attention (nothing is added).
enum class PositionEncoding { Learned, Sinusoidal, Rotary };

struct GPTConfig {
  Arch arch = Arch::Gpt2;
  int64_t vocab_size = 0;
  int64_t block_size = 0;  // context length (HF: n_positions)
  int64_t n_layer = 0;
  int64_t n_head = 0;
  int64_t d_model = 0;          // HF: n_embd
  int64_t d_ff = 0;             // hidden size of the feed-forward network; 0 means 4 * d_model
                                // (gpt2; llama needs it: HF's intermediate_size)
  int64_t n_kv_head = 0;        // llama: key/value heads (grouped-query attention); 0: n_head
  int64_t head_dim = 0;         // llama: width of one head; 0 means d_model / n_head
  float rope_theta = 10000.0f;  // llama: RoPE base
  ops::Llama3RopeScaling rope_scaling;  // llama: Llama 3's rope_scaling (factor 0: none)
  bool qk_norm = false;                 // llama: Qwen3's RMSNorm of each q, k head
  ops::Activation activation = ops::Activation::GeluTanh;
  PositionEncoding position = PositionEncoding::Learned;
  bool pre_ln = true;          // false: post-LN blocks x = LN(x + f(x)) (original Transformer)
  bool residual = true;        // false: no skip connections, x = f(x) (the course's experiment)
  bool tie_head = true;        // head weight shared with the token embedding
  bool qkv_bias = true;        // biases of the Q, K, V projections (llama: attention_bias)
  bool attn_proj_bias = true;  // bias of the attention output projection
  bool ffn_bias = true;        // biases of the two feed-forward linears
  bool ln_bias = true;         // LayerNorm has a bias (beta)
  bool head_bias = false;      // bias of an untied head (GPT-2 has none)
  float norm_eps = 1e-5f;      // LayerNorm's or RMSNorm's eps (JSON: ln_eps, llama norm_eps)
  float dropout = 0.0f;        // on embeddings and residual branches
  float attn_dropout = -1.0f;  // on attention weights; < 0 means "same as dropout"

  int64_t ffn_hidden() const { return d_ff > 0 ? d_ff : 4 * d_model; }
  int64_t head_size() const { return head_dim > 0 ? head_dim : d_model / n_head; }
  int64_t kv_heads() const { return n_kv_head > 0 ? n_kv_head : n_head; }
  float attention_dropout() const { return attn_dropout < 0 ? dropout : attn_dropout; }

  // Throws InputError("model.<field>: ...") for an inconsistent config, or one whose
  // weights would not fit in this machine's memory.
  void validate() const;

  nlohmann::json to_json() const;
  // Fields not present keep their defaults; unknown or ill-typed ones throw InputError
  // naming "<prefix><field>". "bias": bool sets all four bias flags at once (nanoGPT).
  static GPTConfig from_json(const nlohmann::json& j, const std::string& prefix = "model.");

  // Released models' shapes by name (model/presets.cpp): GPT-2's as OpenAI released them
  // ("gpt2-124m", "gpt2-355m", "gpt2-774m", "gpt2-1558m": vocab 50257, context 1024, all
  // biases, tied) and the llama family's ("smollm2-135m", "qwen2.5-0.5b", "qwen3-0.6b",
  // "llama-3.2-1b"). Throws InputError if unknown, listing them.
  // (A preset names its own arch: "arch" beside it must agree.)
  static GPTConfig preset(const std::string& name);
};

// What each of the model's blocks is built from: the block's fields of c, with d_ff and
// attn_dropout resolved (ffn_hidden(), attention_dropout()).
nn::BlockConfig block_config(const GPTConfig& c);

// The presets' names, comma-separated, for help texts and messages.
std::string preset_names();

// "gpt2" or "llama".
const char* arch_name(Arch a);

}  // namespace tinylm
