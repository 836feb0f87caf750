// What one block of a model holds, from its config alone, as the model builds it
// (nn/transformer_block.h): its two norms and its linear layers, attention's then the
// feed-forward's, each with the symbols of its widths. The parameter table, the FLOP
// count and the roofline read the family's layers here, so that a family is one list.
//   gpt2:  ln_1, attn.c_attn C -> 3C, attn.c_proj C -> C, ln_2, mlp.c_fc C -> F,
//          mlp.c_proj F -> C
//   llama: input_layernorm, self_attn.q_proj C -> H*D, k_proj and v_proj C -> KV*D,
//          o_proj H*D -> C, (q_norm, k_norm D), post_attention_layernorm,
//          mlp.gate_proj and up_proj C -> F, down_proj F -> C
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace tinylm::report {

struct BlockLinear {
  std::string component;        // "attn.c_attn (Q, K, V)", "self_attn.q_proj"
  std::string in_sym, out_sym;  // "C", "3C", "H*D", "KV*D", "F"
  int64_t in = 0, out = 0;
  bool bias = false;
};

struct BlockLayers {
  std::string norm_1, norm_2;          // "ln_1", "input_layernorm"
  std::vector<BlockLinear> attention;  // the projections in, then the one out
  std::vector<BlockLinear> mlp;
  int64_t head_norm_width = 0;  // Qwen3's q_norm and k_norm [D] (0: none)
  std::string attention_width;  // the symbol of H * D: "C" (GPT-2) or "H*D"
};

BlockLayers block_layers(const GPTConfig& c);

// Bytes of keys and values one token adds to a float32 KV cache: 2 x L x KV x D x 4
// (grouped-query attention caches its KV heads only).
int64_t kv_cache_bytes_per_token(const GPTConfig& c);

}  // namespace tinylm::report
