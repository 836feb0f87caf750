#include "report/block_layers.h"

namespace tinylm::report {

namespace {

BlockLayers gpt2_layers(const GPTConfig& c) {
  const int64_t C = c.d_model, F = c.ffn_hidden();
  BlockLayers b;
  b.norm_1 = "ln_1", b.norm_2 = "ln_2", b.attention_width = "C";
  b.attention = {{"attn.c_attn (Q, K, V)", "C", "3C", C, 3 * C, c.qkv_bias},
                 {"attn.c_proj", "C", "C", C, C, c.attn_proj_bias}};
  b.mlp = {{"mlp.c_fc", "C", "F", C, F, c.ffn_bias}, {"mlp.c_proj", "F", "C", F, C, c.ffn_bias}};
  return b;
}

BlockLayers llama_layers(const GPTConfig& c) {
  const int64_t C = c.d_model, F = c.d_ff, D = c.head_size();
  const int64_t HD = c.n_head * D, KVD = c.kv_heads() * D;
  BlockLayers b;
  b.norm_1 = "input_layernorm", b.norm_2 = "post_attention_layernorm", b.attention_width = "H*D";
  b.attention = {{"self_attn.q_proj", "C", "H*D", C, HD, c.qkv_bias},
                 {"self_attn.k_proj", "C", "KV*D", C, KVD, c.qkv_bias},
                 {"self_attn.v_proj", "C", "KV*D", C, KVD, c.qkv_bias},
                 {"self_attn.o_proj", "H*D", "C", HD, C, false}};
  b.mlp = {{"mlp.gate_proj", "C", "F", C, F, false},
           {"mlp.up_proj", "C", "F", C, F, false},
           {"mlp.down_proj", "F", "C", F, C, false}};
  b.head_norm_width = c.qk_norm ? D : 0;
  return b;
}

}  // namespace

BlockLayers block_layers(const GPTConfig& c) {
  return c.arch == Arch::Llama ? llama_layers(c) : gpt2_layers(c);
}

int64_t kv_cache_bytes_per_token(const GPTConfig& c) {
  return 2 * c.n_layer * c.kv_heads() * c.head_size() * 4;
}

}  // namespace tinylm::report
