// Parameter counts of a GPT, in closed form from its GPTConfig alone (no model built),
// component by component as the model holds them (names as in gpt.h):
//   wte  V x C                          token embedding
//   wpe  block_size x C                 learned positions (0: sinusoidal is a fixed table)
//   per block (x L):
//     ln_1, ln_2     C (+ C bias if ln_bias)
//     attn.c_attn    3C x C (+ 3C if qkv_bias)        Q, K, V projections
//     attn.c_proj    C x C (+ C if attn_proj_bias)
//     mlp.c_fc       d_ff x C (+ d_ff if ffn_bias)    d_ff = config.ffn_hidden()
//     mlp.c_proj     C x d_ff (+ C if ffn_bias)
//   ln_f  C (+ C)
//   head  V x C (+ V if head_bias), or 0 extra when tied to wte
// The llama family's rows are its own layers (report/block_layers.h): embed_tokens, no
// position table (RoPE), RMSNorms without bias, q/k/v/o and gate/up/down projections,
// Qwen3's q/k norms.
// total() equals GPT(config).num_parameters() (each tensor counted once).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace tinylm::report {

struct ParamRow {
  std::string component;  // "attn.c_attn (Q, K, V)"
  std::string shape;      // "1152 x 384 + 1152"
  int64_t count = 0;      // parameters of one instance
  int64_t copies = 1;     // n_layer for per-block rows, else 1
  std::string note;       // "tied to token embedding, 0 extra", ...
  int64_t total() const { return count * copies; }
};

struct ParamTable {
  std::vector<ParamRow> rows;  // model order: wte, wpe, block parts, ln_f, head
  size_t last_block_row = 0;   // the index of the block's last part
  int64_t token_embedding = 0;
  int64_t position_embedding = 0;  // 0 for sinusoidal positions
  int64_t per_block = 0;
  int64_t total = 0;
  // nanoGPT's get_num_params(non_embedding=True): total minus the position embedding
  // only (the token embedding stays: with a tied head it is also the output layer).
  int64_t excluding_position = 0;
  // total minus both embedding tables (Kaplan et al.'s "non-embedding" N).
  int64_t excluding_embeddings = 0;
};

ParamTable param_table(const GPTConfig& c);

}  // namespace tinylm::report
