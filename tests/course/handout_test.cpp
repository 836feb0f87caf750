// The handout's worked example of scaled dot-product attention: Q K^T by hand, softmax
// rows that sum to 1, the causal mask (-inf, then 0 weight above the diagonal), Y = A V,
// and the text `tinylm attention --example` prints.
#include "course/handout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace tinylm::course {
namespace {

constexpr int T = HandoutExample::T, D = HandoutExample::d;

TEST(Handout, ScoresSoftmaxAndOutputFollowFromQKV) {
  const std::vector<float> V = {1, 0, 0, 2, 3, 1};
  for (bool causal : {false, true}) {
    const HandoutExample ex = handout_example(causal);
    EXPECT_EQ(ex.qk, (std::vector<float>{1, 1, 0, 0, 1, 1, 1, 2, 1})) << causal;
    for (int q = 0; q < T; ++q) {
      double sum = 0, max = -INFINITY;
      for (int k = 0; k < T; ++k) {
        const float s = ex.scores[q * T + k];
        if (causal && k > q) {
          EXPECT_EQ(s, -INFINITY);
          EXPECT_EQ(ex.attention[q * T + k], 0.0f);
          continue;
        }
        EXPECT_NEAR(s, ex.qk[q * T + k] / std::sqrt(2.0), 1e-6);
        max = std::max(max, static_cast<double>(s));
      }
      for (int k = 0; k < T; ++k)
        if (!causal || k <= q) sum += std::exp(ex.scores[q * T + k] - max);
      for (int k = 0; k < T; ++k) {
        if (causal && k > q) continue;
        EXPECT_NEAR(ex.attention[q * T + k], std::exp(ex.scores[q * T + k] - max) / sum, 1e-6);
      }
      for (int d = 0; d < D; ++d) {
        double y = 0;
        for (int k = 0; k < T; ++k) y += ex.attention[q * T + k] * V[k * D + d];
        EXPECT_NEAR(ex.output[q * D + d], y, 1e-5) << "causal " << causal << " row " << q;
      }
    }
  }
  EXPECT_EQ(handout_example(true).attention[0], 1.0f);  // token 0 sees only itself
}

TEST(Handout, PrintsEachStep) {
  const std::string unmasked = format_handout(handout_example(false));
  const std::string causal = format_handout(handout_example(true));
  EXPECT_EQ(unmasked.rfind("\n--- no mask ---\nQ K^T =\n  [  1.0000   1.0000   0.0000 ]\n", 0), 0u)
      << unmasked;
  for (const char* step :
       {"S = Q K^T / sqrt(2) =\n", "A = softmax(S) (rows sum to 1) =\n", "Y = A V =\n"})
    EXPECT_NE(unmasked.find(step), std::string::npos) << step;
  EXPECT_NE(causal.find("--- causal mask (token t sees tokens 0..t) ---"), std::string::npos);
  EXPECT_NE(causal.find("masked with -inf above the diagonal =\n  [  0.7071     -inf     -inf ]"),
            std::string::npos)
      << causal;
  EXPECT_NE(causal.find("  [  1.0000   0.0000   0.0000 ]"), std::string::npos) << causal;
  EXPECT_EQ(format_handout_inputs().rfind("Q = [[1,0],[0,1],[1,1]]", 0), 0u);
}

}  // namespace
}  // namespace tinylm::course
