// A Hugging Face GPT-2 folder whose vocabulary is GPT-2's 50257 ids padded to 50304 rows
// (as nanoGPT trains it) and whose every next token is the padding id 50300: ln_f puts
// out the same vector b for every position, and row 50300 of the tied head is b, so its
// logit (C * 100) beats every other by far. For the tests of what padding ids spell.
#pragma once
#include <cstdint>
#include <string>

#include "model/gpt.h"
#include "model/hf_gpt2.h"
#include "util/rng.h"

namespace tinylm::testing {

inline constexpr int32_t kGeneratedPaddingId = 50300;

inline void write_folder_that_generates_padding(const std::string& dir) {
  GPTConfig c;
  c.vocab_size = 50304, c.block_size = 32, c.n_layer = 1, c.n_head = 2, c.d_model = 16;
  GPT model(c);
  Rng rng(7);
  model.init(rng);
  model.ln_f.weight.value.fill(0.0f);
  model.ln_f.bias.value.fill(10.0f);
  float* row = model.wte.weight.value.data() + int64_t{kGeneratedPaddingId} * c.d_model;
  for (int64_t i = 0; i < c.d_model; ++i) row[i] = 10.0f;
  save_hf_gpt2(model, dir);
}

}  // namespace tinylm::testing
