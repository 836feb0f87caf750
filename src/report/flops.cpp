#include "report/flops.h"

#include <algorithm>

#include "report/block_layers.h"
#include "report/param_table.h"
#include "util/checked_math.h"
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
  const int64_t H = c.n_head, KV = c.kv_heads(), D = c.head_size(), A = H * D;
  // An upper bound of every count below, checked, so that none of them overflows.
  checked_product({64, L + 2, std::max(C, A), std::max({C, A, F, V, T}), B, T},
                  "the FLOPs of a training step (batch " + std::to_string(B) + ", sequence " +
                      std::to_string(T) + ")");
  FlopEstimate e;
  e.batch = B, e.seq = T;
  // Each linear layer 2 * in * out; attention's two products over the T keys, 2 * T * A
  // each (A = H * D, C for GPT-2), between the projections in and the one out.
  const BlockLayers block = block_layers(c);
  const auto linear = [&](const BlockLinear& l) {
    return FlopRow{l.component, "2 * " + l.in_sym + " * " + l.out_sym, 2 * l.in * l.out, L};
  };
  const std::string& a = block.attention_width;
  for (size_t i = 0; i + 1 < block.attention.size(); ++i)
    e.rows.push_back(linear(block.attention[i]));
  e.rows.push_back({"attention scores q k^T", "2 * T * " + a, 2 * T * A, L});
  e.rows.push_back({"attention weights @ v", "2 * T * " + a, 2 * T * A, L});
  e.attention_per_token = e.rows.back().per_token() * 2;
  e.rows.push_back(linear(block.attention.back()));
  for (const BlockLinear& l : block.mlp) e.rows.push_back(linear(l));
  e.rows.push_back({"head (lm_head)", "2 * C * V", 2 * C * V, 1});
  for (const auto& row : e.rows) e.forward_per_token += row.per_token();

  const int64_t tokens = B * T;
  e.forward_per_step = e.forward_per_token * tokens;
  e.backward_per_step = 2 * e.forward_per_step;
  e.train_per_step = 3 * e.forward_per_step;

  const ParamTable p = param_table(c);
  e.six_n = 6 * p.excluding_position * tokens;
  e.six_n_kaplan = 6 * p.excluding_embeddings * tokens;
  e.six_n_attention = e.six_n + 12 * L * T * A * tokens;

  int64_t bias_elements = 0;
  for (const std::vector<BlockLinear>* part : {&block.attention, &block.mlp})
    for (const BlockLinear& l : *part)
      if (l.bias) bias_elements += L * l.out;
  if (c.head_bias) bias_elements += V;
  const bool llama = c.arch == Arch::Llama;
  e.elementwise = {
      llama ? ElementwiseRow{"rotary embeddings (q, k)", "L * (H + KV) * D", L * (H + KV) * D}
            : ElementwiseRow{"embedding add (tok + pos)", "C", C},
      {llama ? "RMSNorm" : "LayerNorm", "(2L + 1) * C", (2 * L + 1) * C},
      {"softmax (attention)", "L * H * T", L * H * T},
      {llama ? "silu(gate) * up" : "activation", "L * F", L * F},
      {"residual adds", "2L * C", 2 * L * C},
      {"bias adds", "per the bias flags", bias_elements},
      {"cross-entropy softmax", "V", V},
  };
  return e;
}

}  // namespace tinylm::report
