// Batched decoding (DecodeContext::forward over several caches): each sequence's logits are
// bit for bit what it gets alone, whatever the other sequences are and however many
// there are, for pre- and post-LN blocks and odd widths; a batched prompt matches the
// same prompt alone within float rounding.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "decode/decode_context.h"

namespace tinylm {
namespace {

GPT random_model(bool pre_ln, bool sinusoidal = false) {
  GPTConfig c;
  c.vocab_size = 53, c.block_size = 24, c.n_layer = 2, c.n_head = 3;
  c.d_model = sinusoidal ? 30 : 21;  // sinusoidal positions need an even width
  c.pre_ln = pre_ln;
  if (sinusoidal) c.position = PositionEncoding::Sinusoidal;
  GPT model(c);
  Rng rng(11);
  model.init(rng);
  for (auto& p : model.parameters())
    for (int64_t i = 0; i < p.param->value.numel(); ++i) p.param->value[i] += 0.2f * rng.normal();
  return model;
}

std::vector<float> row(const Tensor& logits, int64_t s, int64_t V) {
  const std::vector<float> all = logits.to_vector();
  return {all.begin() + s * V, all.begin() + (s + 1) * V};
}

int32_t argmax_of(const std::vector<float>& v) {
  return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

TEST(BatchedDecode, EachSequenceGetsExactlyWhatItGetsAlone) {
  for (auto [pre_ln, sinusoidal] : {std::pair{true, false}, {false, false}, {true, true}}) {
    GPT model = random_model(pre_ln, sinusoidal);
    DecodeContext decoder(model);
    const int64_t V = model.config().vocab_size;
    const std::vector<std::vector<int32_t>> prompts = {
        {1, 2, 3}, {7}, {4, 4, 4, 4, 4, 9}, {52, 0}, {5, 6, 7, 8}, {30, 31, 32, 33, 34, 35, 36}};
    const size_t S = prompts.size();
    std::vector<std::unique_ptr<KVCache>> batched, alone;
    std::vector<int32_t> next(S);
    for (size_t s = 0; s < S; ++s) {  // each prompt prefilled on its own, twice
      for (auto* caches : {&batched, &alone}) {
        caches->push_back(std::make_unique<KVCache>(model.config()));
        const Tensor logits = decoder.forward(
            prompts[s].data(), static_cast<int64_t>(prompts[s].size()), *caches->back());
        next[s] = argmax_of(row(logits, 0, V));
      }
    }
    // Decode steps with a changing batch: all sequences, then the odd ones only.
    for (int step = 0; step < 10; ++step) {
      std::vector<size_t> members;
      for (size_t s = 0; s < S; ++s)
        if (step < 5 || s % 2 == 1) members.push_back(s);
      std::vector<int32_t> ids;
      std::vector<int64_t> counts;
      std::vector<KVCache*> caches;
      for (size_t s : members) {
        ids.push_back(next[s]);
        counts.push_back(1);
        caches.push_back(batched[s].get());
      }
      const std::vector<float> all = decoder.forward(ids.data(), counts, caches).to_vector();
      for (size_t i = 0; i < members.size(); ++i) {
        const size_t s = members[i];
        const std::vector<float> one = row(decoder.forward(&next[s], 1, *alone[s]), 0, V);
        const std::vector<float> in_batch(all.begin() + i * V, all.begin() + (i + 1) * V);
        ASSERT_EQ(one, in_batch) << "pre_ln " << pre_ln << " step " << step << " sequence " << s;
        next[s] = argmax_of(one);
      }
    }
    for (size_t s = 0; s < S; ++s) EXPECT_EQ(batched[s]->pos, alone[s]->pos);
  }
}

// Prompts of different lengths in one call (rows of the prompts one after another):
// each sequence's last logits match its prompt alone.
TEST(BatchedDecode, PromptsOfDifferentLengthsInOneCall) {
  GPT model = random_model(true);
  DecodeContext decoder(model);
  const int64_t V = model.config().vocab_size;
  const std::vector<int32_t> ids = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                    11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  const std::vector<int64_t> counts = {3, 1, 16};
  KVCache a(model.config()), b(model.config()), c(model.config());
  std::vector<KVCache*> caches = {&a, &b, &c};
  const std::vector<float> all = decoder.forward(ids.data(), counts, caches).to_vector();
  for (int64_t s = 0, first = 0; s < 3; first += counts[s], ++s) {
    KVCache alone(model.config());
    const std::vector<float> one = row(decoder.forward(ids.data() + first, counts[s], alone), 0, V);
    for (int64_t v = 0; v < V; ++v) EXPECT_NEAR(all[s * V + v], one[v], 1e-5) << "sequence " << s;
    EXPECT_EQ(caches[s]->pos, counts[s]);
  }
}

TEST(BatchedDecode, RefusesPositionsPastTheContext) {
  GPT model = random_model(true);
  DecodeContext decoder(model);
  KVCache a(model.config()), b(model.config());
  b.pos = model.config().block_size;  // full
  const std::vector<int32_t> ids = {1, 2};
  const std::vector<int64_t> counts = {1, 1};
  std::vector<KVCache*> caches = {&a, &b};
  EXPECT_THROW(decoder.forward(ids.data(), counts, caches), std::exception);
}

}  // namespace
}  // namespace tinylm
