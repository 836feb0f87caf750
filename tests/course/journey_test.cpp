// Raschka chapter 3's "Your journey starts with one step": the numbers the book prints,
// and the identities they follow from (so a wrong input or kernel cannot pass).
#include "course/journey.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "course/torch_generator.h"

namespace tinylm::course {
namespace {

void expect_near4(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 5.1e-5) << "entry " << i;
}

std::vector<float> row(const std::vector<float>& m, int r, int cols) {
  return {m.begin() + r * cols, m.begin() + (r + 1) * cols};
}

TEST(Journey, SecondTokenScoresWeightsAndContext) {
  const JourneyExample ex = journey_example();
  expect_near4(ex.scores_2, {0.9544f, 1.4950f, 1.4754f, 0.8434f, 0.7070f, 1.0865f});
  expect_near4(ex.weights_2_by_sum, {0.1455f, 0.2278f, 0.2249f, 0.1285f, 0.1077f, 0.1656f});
  expect_near4(ex.weights_2, {0.1385f, 0.2379f, 0.2333f, 0.1240f, 0.1082f, 0.1581f});
  expect_near4(ex.context_2, {0.4419f, 0.6515f, 0.5683f});
}

TEST(Journey, AllSixContextVectors) {
  const JourneyExample ex = journey_example();
  expect_near4(ex.contexts, {0.4421f, 0.5931f, 0.5790f, 0.4419f, 0.6515f, 0.5683f,  //
                             0.4431f, 0.6496f, 0.5671f, 0.4304f, 0.6298f, 0.5510f,  //
                             0.4671f, 0.5910f, 0.5266f, 0.4177f, 0.6503f, 0.5645f});
  expect_near4(row(ex.scores, 0, 6), {0.9995f, 0.9544f, 0.9422f, 0.4753f, 0.4576f, 0.6310f});
  expect_near4(row(ex.weights, 0, 6), {0.2098f, 0.2006f, 0.1981f, 0.1242f, 0.1220f, 0.1452f});
  // The matrix form agrees with the single-query form, and every row sums to 1.
  expect_near4(row(ex.contexts, 1, 3), ex.context_2);
  for (int r = 0; r < 6; ++r) {
    float sum = 0.0f;
    for (float w : row(ex.weights, r, 6)) sum += w;
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
  }
}

TEST(Journey, CausalMaskThenRenormaliseEqualsMinusInfSoftmax) {
  const JourneyExample ex = journey_example();
  for (int i = 0; i < 6; ++i) {
    float sum = 0.0f;
    for (int j = 0; j < 6; ++j) {
      if (j > i) {
        EXPECT_EQ(ex.causal_zeroed[i * 6 + j], 0.0f);
        EXPECT_EQ(ex.causal_inf_masked[i * 6 + j], 0.0f);
      }
      EXPECT_NEAR(ex.causal_renormed[i * 6 + j], ex.causal_inf_masked[i * 6 + j], 1e-6f);
      sum += ex.causal_renormed[i * 6 + j];
    }
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
  }
  EXPECT_EQ(ex.causal_renormed[0], 1.0f);
  // The last row sees everything: masking changes nothing there.
  expect_near4(row(ex.causal_renormed, 5, 6), row(ex.causal_unmasked, 5, 6));
}

// PyTorch's CPU generator: MT19937 seeded as std::mt19937, 24 bits per float.
TEST(TorchCpuGenerator, FirstDrawsFollowMt19937) {
  std::mt19937 mt(123);
  TorchCpuGenerator gen(123);
  for (int i = 0; i < 10; ++i) {
    const uint32_t draw = static_cast<uint32_t>(mt());
    EXPECT_EQ(gen.uniform(0.0f, 1.0f), static_cast<float>(draw & 0xFFFFFF) / 16777216.0f);
  }
  // The 10,000th output of the standard MT19937 seeded with 5489 (C++ [rand.predef]).
  std::mt19937 standard;
  standard.discard(9999);
  EXPECT_EQ(standard(), 4123659995u);
}

// The book's numbers for the parts that start from torch.manual_seed.
TEST(Journey, TrainableWeightsMatchTheBook) {
  const JourneyExample ex = journey_example();
  expect_near4(row(ex.queries, 1, 2), {0.4306f, 1.4551f});
  expect_near4(ex.trained_scores_2, {1.2705f, 1.8524f, 1.8111f, 1.0795f, 0.5577f, 1.5440f});
  expect_near4(ex.trained_weights_2, {0.1500f, 0.2264f, 0.2199f, 0.1311f, 0.0906f, 0.1820f});
  expect_near4(ex.trained_context_2, {0.3061f, 0.8210f});
  expect_near4(ex.trained_contexts, {0.2996f, 0.8053f, 0.3061f, 0.8210f, 0.3058f, 0.8203f,  //
                                     0.2948f, 0.7939f, 0.2927f, 0.7891f, 0.2990f, 0.8040f});
}

TEST(Journey, CausalWeightsMatchTheBook) {
  const JourneyExample ex = journey_example();
  expect_near4(row(ex.causal_unmasked, 0, 6),
               {0.1921f, 0.1646f, 0.1652f, 0.1550f, 0.1721f, 0.1510f});
  expect_near4(row(ex.causal_renormed, 1, 6), {0.5517f, 0.4483f, 0.0f, 0.0f, 0.0f, 0.0f});
}

TEST(Journey, PrintsEverySection) {
  const std::string text = format_journey(journey_example());
  for (const char* part :
       {"[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]",
        "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]", "[0.4419, 0.6515, 0.5683]",
        "3.4 trainable", "3.5 causal", "renormalised"})
    EXPECT_NE(text.find(part), std::string::npos) << part;
}

}  // namespace
}  // namespace tinylm::course
