#include "model/config.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <map>

#include "util/checked_math.h"
#include "util/error.h"
#include "util/system_memory.h"

namespace tinylm {

namespace {

// The llama family's own rules: a SwiGLU width, whole groups of query heads per key/value
// head, an even head width for the rotation, a usable RoPE base and scaling.
void validate_llama_fields(const GPTConfig& c) {
  require(c.d_ff > 0,
          "model.d_ff must be set for arch llama (the SwiGLU width, Hugging Face's "
          "intermediate_size)");
  require(c.n_kv_head >= 0, "model.n_kv_head must be >= 0 (0 means n_head)");
  require(c.n_kv_head == 0 || c.n_head % c.n_kv_head == 0,
          "model.n_head (" + std::to_string(c.n_head) +
              ") must be a multiple of model.n_kv_head (" + std::to_string(c.n_kv_head) + ")");
  require(c.head_dim >= 0, "model.head_dim must be >= 0 (0 means d_model / n_head)");
  if (c.head_dim > 0)
    require(c.head_dim % 2 == 0, "model.head_dim (" + std::to_string(c.head_dim) +
                                     ") must be even: rotary embeddings turn pairs of values");
  else if (c.d_model % c.n_head == 0)
    require(c.head_size() % 2 == 0,
            "model.d_model / model.n_head (" + std::to_string(c.head_size()) +
                ") must be even: rotary embeddings turn pairs of values (or set model.head_dim)");
  require(c.rope_theta > 0 && std::isfinite(c.rope_theta), "model.rope_theta must be positive");
  const ops::Llama3RopeScaling& r = c.rope_scaling;
  if (r.factor != 0)
    require(r.factor > 0 && r.low_freq_factor > 0 && r.high_freq_factor > r.low_freq_factor &&
                r.original_max_position > 0,
            "model.rope_scaling needs factor > 0, 0 < low_freq_factor < high_freq_factor and "
            "original_max_position_embeddings > 0");
}

}  // namespace

void GPTConfig::validate() const {
  const auto positive = [](int64_t v, const char* field) {
    require(v > 0, std::string("model.") + field + " must be positive, got " + std::to_string(v));
  };
  positive(vocab_size, "vocab_size");
  positive(block_size, "block_size");
  positive(n_layer, "n_layer");
  positive(n_head, "n_head");
  positive(d_model, "d_model");
  require(d_ff >= 0, "model.d_ff must be >= 0 (0 means 4 * d_model)");
  if (arch == Arch::Llama) validate_llama_fields(*this);
  require(head_dim > 0 || d_model % n_head == 0, "model.d_model (" + std::to_string(d_model) +
                                                     ") must be divisible by model.n_head (" +
                                                     std::to_string(n_head) + ")");
  require(position != PositionEncoding::Sinusoidal || d_model % 2 == 0,
          "model.position: sinusoidal encoding needs an even d_model");
  require(dropout >= 0 && dropout < 1, "model.dropout must be in [0, 1)");
  require(attn_dropout < 1, "model.attn_dropout must be < 1");
  require(norm_eps > 0 && std::isfinite(norm_eps),
          "model.norm_eps must be a positive, finite number");
  require(!(tie_head && head_bias), "model.head_bias needs an untied head (tie_head false)");
  // Token ids are int32: a larger vocabulary cannot be indexed.
  require(vocab_size <= INT32_MAX, "model.vocab_size must be at most " + std::to_string(INT32_MAX) +
                                       ", got " + std::to_string(vocab_size));
  // The parameter count must fit 64-bit arithmetic (then every count derived from it
  // does): an upper bound of it, computed with checked operations (attention's widths
  // at most A = max(C, H * D) each, three feed-forward matrices).
  const int64_t C = d_model;
  const int64_t F = d_ff > 0 ? d_ff : checked_mul(4, C, "model.d_model");  // ffn_hidden(), checked
  const int64_t A = std::max(C, checked_mul(n_head, head_size(), "model.head_dim"));
  const int64_t per_block =
      checked_add(checked_mul(checked_mul(4, C, "model.d_model"), A, "model.head_dim"),
                  checked_mul(checked_mul(3, C, "model.d_model"), checked_add(F, 8, "model.d_ff"),
                              "model.d_ff"),
                  "model.d_ff");
  const int64_t embeddings = checked_add(
      checked_mul(checked_mul(2, vocab_size, "model.vocab_size"), C, "model.vocab_size"),
      checked_mul(block_size, C, "model.block_size"), "model.block_size");
  const int64_t bound = checked_add(
      embeddings,
      checked_mul(n_layer, checked_add(per_block, 2 * (C + A), "model.d_model"), "model.n_layer"),
      "model.n_layer");
  // Its weights (float32) must fit this machine: refused here, before any allocation.
  require_fits_in_memory(checked_mul(bound, 4, "model.n_layer"),
                         "a model of this shape (up to " + std::to_string(bound) + " parameters)");
}

const char* arch_name(Arch a) {
  return a == Arch::Llama ? "llama" : "gpt2";
}

nn::BlockConfig block_config(const GPTConfig& c) {
  nn::BlockConfig b;
  const bool llama = c.arch == Arch::Llama;
  b.naming = llama ? nn::Naming::kLlama : nn::Naming::kGpt2;
  b.d_model = c.d_model;
  b.n_head = c.n_head;
  b.n_kv_head = c.kv_heads();
  b.head_dim = c.head_size();
  b.gated = b.rms_norm = b.rotary = llama;
  b.qk_norm = c.qk_norm;
  b.d_ff = c.ffn_hidden();
  b.activation = c.activation;
  b.pre_ln = c.pre_ln;
  b.residual = c.residual;
  b.qkv_bias = c.qkv_bias;
  b.attn_proj_bias = c.attn_proj_bias;
  b.ffn_bias = c.ffn_bias;
  b.ln_bias = c.ln_bias;
  b.norm_eps = c.norm_eps;
  b.dropout = c.dropout;
  b.attn_dropout = c.attention_dropout();
  return b;
}

}  // namespace tinylm
