// attention_maps: one [1, H, T, T] tensor per layer, causal rows that sum to 1, equal to
// the weights trace_input reports block by block, and copies that the next forward pass
// does not overwrite.
#include "report/attention_maps.h"

#include <gtest/gtest.h>

#include "report/random_gpt.h"
#include "report/trace.h"
#include "util/error.h"

namespace tinylm::report {
namespace {

GPTConfig small_config() {
  GPTConfig c;
  c.vocab_size = 11, c.block_size = 9, c.n_layer = 2, c.n_head = 3, c.d_model = 12;
  return c;
}

TEST(AttentionMaps, OneCausalMapPerLayerEqualToTheTrace) {
  GPT model = testing::random_gpt(small_config(), 3);
  Rng rng(4);
  const int64_t T = 6, H = 3;
  const std::vector<int32_t> ids = testing::random_ids(T, 11, rng);
  const std::vector<Tensor> maps = attention_maps(model, ids);
  ASSERT_EQ(maps.size(), 2u);
  const Trace trace = trace_input(model, ids);
  for (size_t l = 0; l < maps.size(); ++l) {
    ASSERT_EQ(maps[l].shape(), (Shape{1, H, T, T}));
    for (int64_t h = 0; h < H; ++h)
      for (int64_t q = 0; q < T; ++q) {
        double sum = 0.0;
        for (int64_t k = 0; k < T; ++k) {
          const int64_t i = (h * T + q) * T + k;
          if (k > q) {
            EXPECT_EQ(maps[l][i], 0.0f);
          }
          sum += maps[l][i];
          EXPECT_NEAR(maps[l][i], trace.blocks[l].attention[i], 1e-6) << l << " " << i;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
  }
  // The maps are the caller's: another forward pass leaves them as they were.
  const float before = maps[1][(2 * T + 5) * T + 3];
  model.forward(testing::random_ids(T, 11, rng).data(), 1, T);
  EXPECT_EQ(maps[1][(2 * T + 5) * T + 3], before);
}

TEST(AttentionMaps, RejectsAnEmptyOrTooLongInput) {
  GPT model = testing::random_gpt(small_config(), 5);
  EXPECT_THROW(attention_maps(model, {}), InputError);
  try {
    attention_maps(model, std::vector<int32_t>(10, 1));
    FAIL() << "a 10-token input was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("block_size 9"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tinylm::report
