#include "report/flops.h"

#include <algorithm>

#include "util/checked_math.h"

#include "report/param_table.h"
#include "util/error.h"

namespace tinylm::report {

void check_batch_shape(const GPTConfig& c, int64_t B, int64_t T) {
  require(B >= 1, "batch must be at least 1, got " + std::to_string(B));
  require(T >= 1 && T <= c.block_size, "sequence length must be in 1.." +
                                           std::to_string(c.block_size) + " (block_size), got " +
                                           std::to_string(T));
}

FlopEstimate estimate_flops(const GPTConfig& c, int64_t B, int64_t T) {
  c.validate();
  check_batch_shape(c, B, T);
  const int64_t V = c.vocab_size, C = c.d_model, L = c.n_layer, F = c.ffn_hidden();
  const int64_t H = c.n_head;
  // An upper bound of every count below, checked, so that none of them overflows.
  checked_product({64, L + 2, C, std::max({C, F, V, T}), B, T},
                  "the FLOPs of a training step (batch " + std::to_string(B) + ", sequence " +
                      std::to_string(T) + ")");
  FlopEstimate e;
  e.batch = B, e.seq = T;
  e.rows = {
      {"attn.c_attn (Q, K, V)", "2 * C * 3C", 2 * C * 3 * C, L},
      {"attention scores q k^T", "2 * T * C", 2 * T * C, L},
      {"attention weights @ v", "2 * T * C", 2 * T * C, L},
      {"attn.c_proj", "2 * C * C", 2 * C * C, L},
      {"mlp.c_fc", "2 * C * F", 2 * C * F, L},
      {"mlp.c_proj", "2 * F * C", 2 * F * C, L},
      {"head (lm_head)", "2 * C * V", 2 * C * V, 1},
  };
  for (const auto& row : e.rows) e.forward_per_token += row.per_token();
  e.attention_per_token = e.rows[1].per_token() + e.rows[2].per_token();

  const int64_t tokens = B * T;
  e.forward_per_step = e.forward_per_token * tokens;
  e.backward_per_step = 2 * e.forward_per_step;
  e.train_per_step = 3 * e.forward_per_step;

  const ParamTable p = param_table(c);
  e.six_n = 6 * p.excluding_position * tokens;
  e.six_n_kaplan = 6 * p.excluding_embeddings * tokens;
  e.six_n_attention = e.six_n + 12 * L * T * C * tokens;

  int64_t bias_elements = 0;
  if (c.qkv_bias) bias_elements += L * 3 * C;
  if (c.attn_proj_bias) bias_elements += L * C;
  if (c.ffn_bias) bias_elements += L * (F + C);
  if (c.head_bias) bias_elements += V;
  e.elementwise = {
      {"embedding add (tok + pos)", "C", C},
      {"LayerNorm", "(2L + 1) * C", (2 * L + 1) * C},
      {"softmax (attention)", "L * H * T", L * H * T},
      {"activation", "L * F", L * F},
      {"residual adds", "2L * C", 2 * L * C},
      {"bias adds", "per the bias flags", bias_elements},
      {"cross-entropy softmax", "V", V},
  };
  return e;
}

}  // namespace tinylm::report
