// Attention-row entropy per head: one-hot rows give 0, uniform causal rows give ln(i + 1).
#include "report/attention_entropy.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tinylm::report {
namespace {

TEST(AttentionEntropy, OneHotAndUniformCausalHeads) {
  const int64_t T = 4;
  Tensor a = Tensor::zeros({1, 2, T, T});
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) {
      a.data()[(0 * T + i) * T + j] = j == 0 ? 1.0f : 0.0f;  // head 0: one key
      a.data()[(1 * T + i) * T + j] = j <= i ? 1.0f / static_cast<float>(i + 1) : 0;  // uniform
    }
  const AttentionEntropy e = attention_entropy({a, a});
  ASSERT_EQ(e.per_head.size(), 2u);
  ASSERT_EQ(e.per_head[0].size(), 2u);
  const double uniform = (std::log(1.0) + std::log(2.0) + std::log(3.0) + std::log(4.0)) / 4;
  EXPECT_NEAR(e.per_head[1][0], 0.0, 1e-9);
  EXPECT_NEAR(e.per_head[1][1], uniform, 1e-6);
  EXPECT_NEAR(e.uniform_causal, uniform, 1e-12);
  const std::string text = render_attention_entropy(e);
  EXPECT_NE(text.find("head 1"), std::string::npos) << text;
  EXPECT_NE(text.find("0.000"), std::string::npos) << text;
}

}  // namespace
}  // namespace tinylm::report
