// Per-block gradient norms: each block's parameters ("h.<l>.", and adapters named
// "transformer.h.<l>.") and nothing else.
#include "train/layer_grad_norms.h"

#include <gtest/gtest.h>

namespace tinylm {
namespace {

TEST(LayerGradNorms, SumsEachBlocksParametersOnly) {
  GPTConfig c;
  c.vocab_size = 11, c.block_size = 8, c.n_layer = 3, c.n_head = 2, c.d_model = 8;
  GPT model(c);
  model.zero_grad();
  for (auto& p : model.parameters()) {
    if (p.name == "h.1.attn.c_attn.weight") p.param->grad.data()[0] = 3.0f;
    if (p.name == "h.1.mlp.c_fc.weight") p.param->grad.data()[5] = 4.0f;
    if (p.name == "h.2.ln_1.weight") p.param->grad.data()[1] = -2.0f;
    if (p.name.rfind("h.", 0) != 0) p.param->grad.data()[0] = 100.0f;  // not a block
  }
  const std::vector<double> norms = layer_grad_norms(model);
  ASSERT_EQ(norms.size(), 3u);
  EXPECT_DOUBLE_EQ(norms[0], 0.0);
  EXPECT_DOUBLE_EQ(norms[1], 5.0);
  EXPECT_DOUBLE_EQ(norms[2], 2.0);
}

TEST(LayerGradNorms, CountsAdaptersByTheirBlockAndSkipsFrozenParameters) {
  Parameter adapter({2, 3}, true), frozen({2, 2}, true), other({1, 1}, true);
  frozen.set_trainable(false);
  adapter.grad.data()[4] = 12.0f;
  other.grad.data()[0] = 7.0f;
  const ParameterList params = {{"transformer.h.1.attn.c_attn.lora_A.weight", &adapter},
                                {"h.0.attn.c_attn.weight", &frozen},
                                {"transformer.wte.weight", &other}};
  const std::vector<double> norms = layer_grad_norms(params, 2);
  ASSERT_EQ(norms.size(), 2u);
  EXPECT_DOUBLE_EQ(norms[0], 0.0);
  EXPECT_DOUBLE_EQ(norms[1], 12.0);
}

}  // namespace
}  // namespace tinylm
