// Parameters as views into one block: values kept, gradients zeroed and adjacent, a tied
// tensor placed once, and zero_grads right whether the block is intact or a parameter has
// left it (frozen, or given its own buffer).
#include "tensor/parameter_block.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace tinylm {
namespace {

struct SmallModel {
  Parameter a{{2, 3}, true}, b{{4}, false}, frozen{{3}, true}, c{{5}, true};
  SmallModel() {
    for (Parameter* p : {&a, &b, &frozen, &c})
      for (int64_t i = 0; i < p->value.numel(); ++i) {
        p->value[i] = static_cast<float>(i) + 0.5f;
        if (p->trainable()) p->grad[i] = 7.0f;
      }
    frozen.set_trainable(false);
  }
  // b listed twice, as a tied embedding and head are.
  ParameterList list() {
    return {{"a", &a}, {"b", &b}, {"frozen", &frozen}, {"c", &c}, {"b_again", &b}};
  }
};

TEST(ParameterBlock, ValuesKeptGradientsZeroAndAdjacent) {
  SmallModel m;
  const ParameterBlock block(m.list());
  EXPECT_EQ(block.value_count(), 6 + 4 + 3 + 5);
  EXPECT_EQ(block.grad_count(), 6 + 4 + 5);
  EXPECT_TRUE(block.intact());
  EXPECT_EQ(m.b.value.data(), m.a.value.data() + 6);
  EXPECT_EQ(m.frozen.value.data(), m.b.value.data() + 4);
  EXPECT_EQ(m.b.grad.data(), m.a.grad.data() + 6);
  EXPECT_EQ(m.c.grad.data(), m.b.grad.data() + 4);  // the frozen one has none
  EXPECT_FALSE(m.frozen.trainable());
  for (Parameter* p : {&m.a, &m.b, &m.frozen, &m.c})
    for (int64_t i = 0; i < p->value.numel(); ++i) {
      EXPECT_EQ(p->value[i], static_cast<float>(i) + 0.5f);
      if (p->trainable()) EXPECT_EQ(p->grad[i], 0.0f);
    }
  EXPECT_EQ(m.a.value.shape(), (Shape{2, 3}));
}

TEST(ParameterBlock, ZeroGradsWithTheBlockIntactOrNot) {
  SmallModel m;
  ParameterBlock block(m.list());
  for (Parameter* p : {&m.a, &m.b, &m.c}) p->grad.fill(3.0f);
  block.zero_grads();
  for (Parameter* p : {&m.a, &m.b, &m.c})
    for (int64_t i = 0; i < p->grad.numel(); ++i) EXPECT_EQ(p->grad[i], 0.0f);

  m.b.set_trainable(false);      // leaves the block's gradients
  m.frozen.set_trainable(true);  // a gradient of its own
  EXPECT_FALSE(block.intact());
  for (Parameter* p : {&m.a, &m.frozen, &m.c}) p->grad.fill(3.0f);
  block.zero_grads();
  for (Parameter* p : {&m.a, &m.frozen, &m.c})
    for (int64_t i = 0; i < p->grad.numel(); ++i) EXPECT_EQ(p->grad[i], 0.0f);
}

TEST(TensorView, SharesTheStorageAndStopsAtItsEnd) {
  Tensor t = Tensor::zeros({10});
  Tensor v = t.view(4, {2, 3});
  v[0] = 1.0f;
  v[5] = 2.0f;
  EXPECT_EQ(t[4], 1.0f);
  EXPECT_EQ(t[9], 2.0f);
  EXPECT_THROW(t.view(5, {2, 3}), InputError);
}

}  // namespace
}  // namespace tinylm
