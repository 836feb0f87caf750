#include "report/param_table.h"

namespace tinylm::report {

namespace {

std::string dims(int64_t rows, int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// A Linear layer in -> out: weight [out, in] (+ bias [out]).
ParamRow linear_row(const std::string& name, int64_t in, int64_t out, bool bias, int64_t copies) {
  std::string shape = dims(out, in);
  if (bias) shape += " + " + std::to_string(out);
  return {name, shape, out * in + (bias ? out : 0), copies, ""};
}

// LayerNorm over C: weight [C] (+ bias [C]).
ParamRow norm_row(const std::string& name, int64_t C, bool bias, int64_t copies) {
  return {name, bias ? std::to_string(C) + " + " + std::to_string(C) : std::to_string(C),
          bias ? 2 * C : C, copies, ""};
}

}  // namespace

ParamTable param_table(const GPTConfig& c) {
  const int64_t V = c.vocab_size, C = c.d_model, L = c.n_layer, F = c.ffn_hidden();
  ParamTable t;
  t.rows.push_back({"token embedding (wte)", dims(V, C), V * C, 1, ""});
  if (c.position == PositionEncoding::Learned) {
    t.rows.push_back({"position embedding (wpe)", dims(c.block_size, C), c.block_size * C, 1, ""});
  } else {
    t.rows.push_back({"position encoding", "-", 0, 1, "sinusoidal, fixed (not trained)"});
  }
  const size_t first_block_row = t.rows.size();
  t.rows.push_back(norm_row("block: ln_1", C, c.ln_bias, L));
  t.rows.push_back(linear_row("block: attn.c_attn (Q, K, V)", C, 3 * C, c.qkv_bias, L));
  t.rows.push_back(linear_row("block: attn.c_proj", C, C, c.attn_proj_bias, L));
  t.rows.push_back(norm_row("block: ln_2", C, c.ln_bias, L));
  t.rows.push_back(linear_row("block: mlp.c_fc", C, F, c.ffn_bias, L));
  t.rows.push_back(linear_row("block: mlp.c_proj", F, C, c.ffn_bias, L));
  for (size_t i = first_block_row; i < t.rows.size(); ++i) t.per_block += t.rows[i].count;
  t.rows.push_back(norm_row("final norm (ln_f)", C, c.ln_bias, 1));
  if (c.tie_head) {
    t.rows.push_back({"head (lm_head)", dims(V, C), 0, 1, "tied to token embedding, 0 extra"});
  } else {
    t.rows.push_back(linear_row("head (lm_head)", C, V, c.head_bias, 1));
  }

  t.token_embedding = t.rows[0].total();
  t.position_embedding = t.rows[1].total();
  for (const auto& row : t.rows) t.total += row.total();
  t.excluding_position = t.total - t.position_embedding;
  t.excluding_embeddings = t.excluding_position - t.token_embedding;
  return t;
}

}  // namespace tinylm::report
