// GPTConfig::preset: the shapes of released models by name, one row each.
//   gpt2-124m .. gpt2-1558m   OpenAI's GPT-2 (vocab 50257, context 1024, biases, tied)
//   smollm2-135m              HuggingFaceTB/SmolLM2-135M        134,515,008 parameters
//   qwen2.5-0.5b              Qwen/Qwen2.5-0.5B                 494,032,768
//   qwen3-0.6b                Qwen/Qwen3-0.6B                   596,049,920
//   llama-3.2-1b              meta-llama/Llama-3.2-1B         1,235,814,400
// The llama family's rows are their config.json files' shapes (hidden_size,
// num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
// intermediate_size, vocab_size, max_position_embeddings, rope_theta, rope_scaling,
// rms_norm_eps, tie_word_embeddings, attention_bias); their parameter counts above are
// the models' published ones, which tests/model/presets_test.cpp checks.
#include <string>
#include <vector>

#include "model/config.h"
#include "util/error.h"

namespace tinylm {

namespace {

struct Preset {
  const char* name;
  GPTConfig config;
};

GPTConfig gpt2(int64_t n_layer, int64_t n_head, int64_t d_model) {
  GPTConfig c;
  c.vocab_size = 50257, c.block_size = 1024;
  c.n_layer = n_layer, c.n_head = n_head, c.d_model = d_model;
  return c;
}

// A tied llama-family shape without biases; the caller sets what differs.
GPTConfig llama(int64_t vocab, int64_t context, int64_t n_layer, int64_t d_model, int64_t n_head,
                int64_t n_kv_head, int64_t head_dim, int64_t d_ff, float rope_theta) {
  GPTConfig c;
  c.arch = Arch::Llama;
  c.position = PositionEncoding::Rotary;
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = c.head_bias = false;
  c.tie_head = true;
  c.vocab_size = vocab, c.block_size = context, c.n_layer = n_layer, c.d_model = d_model;
  c.n_head = n_head, c.n_kv_head = n_kv_head, c.d_ff = d_ff, c.rope_theta = rope_theta;
  if (head_dim * n_head != d_model) c.head_dim = head_dim;
  return c;
}

std::vector<Preset> presets() {
  GPTConfig smollm2 = llama(49152, 8192, 30, 576, 9, 3, 64, 1536, 100000.0f);
  smollm2.norm_eps = 1e-5f;
  GPTConfig qwen25 = llama(151936, 32768, 24, 896, 14, 2, 64, 4864, 1000000.0f);
  qwen25.qkv_bias = true;
  qwen25.norm_eps = 1e-6f;
  GPTConfig qwen3 = llama(151936, 40960, 28, 1024, 16, 8, 128, 3072, 1000000.0f);
  qwen3.qk_norm = true;
  qwen3.norm_eps = 1e-6f;
  GPTConfig llama32 = llama(128256, 131072, 16, 2048, 32, 8, 64, 8192, 500000.0f);
  llama32.rope_scaling = {32.0f, 1.0f, 4.0f, 8192};
  llama32.norm_eps = 1e-5f;
  return {{"gpt2-124m", gpt2(12, 12, 768)},
          {"gpt2-355m", gpt2(24, 16, 1024)},
          {"gpt2-774m", gpt2(36, 20, 1280)},
          {"gpt2-1558m", gpt2(48, 25, 1600)},
          {"smollm2-135m", smollm2},
          {"qwen2.5-0.5b", qwen25},
          {"qwen3-0.6b", qwen3},
          {"llama-3.2-1b", llama32}};
}

}  // namespace

std::string preset_names() {
  std::string names;
  for (const Preset& p : presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

GPTConfig GPTConfig::preset(const std::string& name) {
  for (const Preset& p : presets())
    if (name == p.name) return p.config;
  throw InputError("unknown preset '" + name + "' (" + preset_names() + ")");
}

}  // namespace tinylm
