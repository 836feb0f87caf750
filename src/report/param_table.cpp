#include "report/param_table.h"

#include "report/block_layers.h"

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

// A norm over C: weight [C] (+ bias [C]: LayerNorm's beta).
ParamRow norm_row(const std::string& name, int64_t C, bool bias, int64_t copies) {
  return {name, bias ? std::to_string(C) + " + " + std::to_string(C) : std::to_string(C),
          bias ? 2 * C : C, copies, ""};
}

}  // namespace

// The position row: a learned table, or one that trains nothing (sinusoidal, rotary).
ParamRow position_row(const GPTConfig& c) {
  if (c.position == PositionEncoding::Learned)
    return {"position embedding (wpe)", dims(c.block_size, c.d_model), c.block_size * c.d_model, 1,
            ""};
  if (c.position == PositionEncoding::Rotary)
    return {"position encoding", "-", 0, 1, "rotary (RoPE) inside attention, nothing trained"};
  return {"position encoding", "-", 0, 1, "sinusoidal, fixed (not trained)"};
}

ParamTable param_table(const GPTConfig& c) {
  const int64_t V = c.vocab_size, C = c.d_model, L = c.n_layer;
  const bool llama = c.arch == Arch::Llama;
  const bool norm_bias = c.ln_bias && !llama;
  const BlockLayers block = block_layers(c);
  ParamTable t;
  t.rows.push_back({llama ? "token embedding (embed_tokens)" : "token embedding (wte)", dims(V, C),
                    V * C, 1, ""});
  t.rows.push_back(position_row(c));
  const size_t first_block_row = t.rows.size();
  t.rows.push_back(norm_row("block: " + block.norm_1, C, norm_bias, L));
  for (const BlockLinear& l : block.attention)
    t.rows.push_back(linear_row("block: " + l.component, l.in, l.out, l.bias, L));
  if (block.head_norm_width > 0) {
    t.rows.push_back(norm_row("block: self_attn.q_norm", block.head_norm_width, false, L));
    t.rows.push_back(norm_row("block: self_attn.k_norm", block.head_norm_width, false, L));
  }
  t.rows.push_back(norm_row("block: " + block.norm_2, C, norm_bias, L));
  for (const BlockLinear& l : block.mlp)
    t.rows.push_back(linear_row("block: " + l.component, l.in, l.out, l.bias, L));
  for (size_t i = first_block_row; i < t.rows.size(); ++i) t.per_block += t.rows[i].count;
  t.last_block_row = t.rows.size() - 1;
  t.rows.push_back(norm_row(llama ? "final norm (norm)" : "final norm (ln_f)", C, norm_bias, 1));
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
