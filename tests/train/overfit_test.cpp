// A tiny model memorises short deterministic sequences: the loss goes to near zero.
#include <gtest/gtest.h>

#include <cmath>

#include "model/gpt.h"
#include "optim/adamw.h"

namespace tinylm {
namespace {

double train_on(const std::vector<int32_t>& seq, int64_t vocab, int steps) {
  GPTConfig c;
  c.vocab_size = vocab, c.block_size = 16, c.n_layer = 2, c.n_head = 2, c.d_model = 32;
  GPT model(c);
  Rng rng(42);
  model.init(rng);
  AdamW opt(model.parameters(), AdamWConfig{3e-3f, 0.9f, 0.99f, 1e-8f, 0.0f});
  const int64_t T = static_cast<int64_t>(seq.size()) - 1;
  double loss = 0;
  for (int s = 0; s < steps; ++s) {
    model.zero_grad();
    loss = model.forward_loss(seq.data(), seq.data() + 1, 1, T);
    model.backward();
    clip_gradients(model.parameters(), 1.0);
    opt.step(3e-3f);
  }
  return loss;
}

TEST(Overfit, AlternatingSequence) {
  std::vector<int32_t> abab;
  for (int i = 0; i < 17; ++i) abab.push_back(i % 2);
  const double loss = train_on(abab, 2, 200);
  EXPECT_LT(loss, 0.01);
}

TEST(Overfit, CountingSequence) {
  std::vector<int32_t> counting;
  for (int i = 0; i < 17; ++i) counting.push_back(i % 10);
  const double initial = std::log(10.0);
  const double loss = train_on(counting, 10, 300);
  EXPECT_LT(loss, 0.01) << "started near " << initial;
}

}  // namespace
}  // namespace tinylm
