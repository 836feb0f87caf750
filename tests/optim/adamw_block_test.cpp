// AdamW over parameters that are views into one block (a run's, tensor/parameter_block.h)
// gives the bits of AdamW over parameters with buffers of their own: the block changes
// where the numbers live, not what is computed; and the moments it keeps are per parameter.
#include <gtest/gtest.h>

#include "optim/adamw.h"
#include "tensor/parameter_block.h"

namespace tinylm {
namespace {

struct Params {
  Parameter w{{3, 4}, true}, bias{{4}, false}, frozen{{2}, true};
  Params() {
    for (int64_t i = 0; i < w.value.numel(); ++i) w.value[i] = 0.1f * static_cast<float>(i) - 0.4f;
    for (int64_t i = 0; i < bias.value.numel(); ++i) bias.value[i] = 0.25f * static_cast<float>(i);
    frozen.set_trainable(false);
  }
  ParameterList list() { return {{"w", &w}, {"bias", &bias}, {"frozen", &frozen}}; }
  void set_grads(int step) {
    for (int64_t i = 0; i < w.grad.numel(); ++i)
      w.grad[i] = 0.01f * static_cast<float>((i * 7 + step * 3) % 11) - 0.05f;
    for (int64_t i = 0; i < bias.grad.numel(); ++i)
      bias.grad[i] = 0.02f * static_cast<float>(step + 1) - 0.01f * static_cast<float>(i);
  }
};

TEST(AdamWOverABlock, TheSameBitsAsOverSeparateBuffers) {
  Params own, blocked;
  const ParameterBlock block(blocked.list());
  ASSERT_TRUE(block.intact());
  const AdamWConfig config{1e-2f, 0.9f, 0.99f, 1e-8f, 0.1f};
  AdamW a(own.list(), config), b(blocked.list(), config);
  for (int step = 0; step < 3; ++step) {
    own.set_grads(step);
    blocked.set_grads(step);
    a.step(1e-2f);
    b.step(1e-2f);
  }
  for (const auto& [x, y] : {std::pair<Parameter*, Parameter*>{&own.w, &blocked.w},
                             {&own.bias, &blocked.bias},
                             {&own.frozen, &blocked.frozen}})
    for (int64_t i = 0; i < x->value.numel(); ++i) ASSERT_EQ(x->value[i], y->value[i]) << i;
  ASSERT_EQ(b.first_moments().size(), 2u);  // the frozen parameter has none
  EXPECT_EQ(b.first_moments()[0].numel(), 12);
  EXPECT_EQ(b.second_moments()[1].numel(), 4);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(a.first_moments()[1][i], b.first_moments()[1][i]);
}

}  // namespace
}  // namespace tinylm
