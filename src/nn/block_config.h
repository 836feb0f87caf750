// The shape and choices of one transformer block (nn/transformer_block.h), resolved:
// every default already applied. model/ builds it from the whole model's GPTConfig
// (model/config.h: block_config), so that nn/ knows nothing of the model above it.
#pragma once
#include <cstdint>

#include "ops/activation.h"

namespace tinylm::nn {

// Whose parameter names the modules take: GPT-2's (Hugging Face's GPT2LMHeadModel
// without "transformer.": ln_1, attn.c_attn, mlp.c_fc, ...) or the llama family's
// (Hugging Face's LlamaForCausalLM without "model.": input_layernorm, self_attn.q_proj,
// mlp.gate_proj, ...). The llama layout also has separate q, k, v projections.
enum class Naming { kGpt2, kLlama };

struct BlockConfig {
  Naming naming = Naming::kGpt2;
  int64_t d_model = 0;    // C
  int64_t n_head = 0;     // H
  int64_t n_kv_head = 0;  // KV, H % KV == 0 (KV < H: grouped-query attention); 0: H
  int64_t head_dim = 0;   // D (C / H for GPT-2; the llama family may differ); 0: C / H
  int64_t d_ff = 0;       // hidden size of the feed-forward network
  ops::Activation activation = ops::Activation::GeluTanh;
  bool gated = false;          // SwiGLU: down(silu(gate(x)) * up(x)) (activation unused)
  bool rms_norm = false;       // RMSNorm instead of LayerNorm (no bias)
  bool rotary = false;         // RoPE on q and k (the model passes the tables)
  bool qk_norm = false;        // RMSNorm of each q and k head before the rotation (Qwen3)
  bool pre_ln = true;          // false: post-LN, h = LN(x + f(x))
  bool residual = true;        // false: no skip connections, h = f(x)
  bool qkv_bias = true;        // biases of the Q, K, V projections
  bool attn_proj_bias = true;  // bias of the attention output projection
  bool ffn_bias = true;        // biases of the feed-forward linears
  bool ln_bias = true;         // LayerNorm has a bias (beta)
  float norm_eps = 1e-5f;
  float dropout = 0.0f;       // on the residual branches
  float attn_dropout = 0.0f;  // on the attention weights
};

}  // namespace tinylm::nn
