// Memory estimates (report/memory.h) against hand arithmetic on a small config.
#include "report/memory.h"

#include <gtest/gtest.h>

using namespace tinylm;
using report::estimate_memory;

namespace {

// V 10, block 4, 1 layer, 2 heads, C 8, F 32, every bias, tied: N = 1,000 parameters
// (wte 80, wpe 32, block: ln 16+16, c_attn 192+24, c_proj 64+8, c_fc 256+32,
//  mlp.c_proj 256+8 = 872, ln_f 16).
GPTConfig memory_config() {
  GPTConfig c;
  c.vocab_size = 10, c.block_size = 4, c.n_layer = 1, c.n_head = 2, c.d_model = 8, c.d_ff = 32;
  return c;
}

}  // namespace

TEST(Memory, SmallConfigByHand) {
  // B 2, T 4: BT 8, BTC 64, BTF 256, B H T = 16 (elements of 4 bytes).
  const auto m = estimate_memory(memory_config(), 2, 4);
  EXPECT_EQ(m.parameters, 4000);
  EXPECT_EQ(m.gradients, 4000);
  EXPECT_EQ(m.optimizer, 8000);
  EXPECT_EQ(m.buffers, 0);
  // forward: ids 8, tok + x0 128, wpe out 32                                = 168
  //   block: ln_1 64+16, qkv 192, q k v y 256, attention lse 16 (tiled: no
  //          [B, H, T, T] weights), merged + proj 128, ln_2 80, c_fc + act 512,
  //          mlp proj 64, residual sums 128                                 = 1,456
  //          (= 14 BTC + 2 BTF + B H T + 4 BT)
  //   ln_f 80, logits + dlogits 2 * 8 * 10 = 160                            = 240
  EXPECT_EQ(m.forward, 4 * (168 + 1456 + 240));  // 7,456
  // backward: dxf + ln_f dx 128; block 7 BTC + 2 BTF = 960; dpos 32         = 1,120
  EXPECT_EQ(m.backward, 4 * 1120);
  // transient: attention backward dy, dq, dk, dv, dqkv = 7 BTC = 448
  EXPECT_EQ(m.transient, 4 * 448);
  EXPECT_EQ(m.step_peak(), 4000 + 4000 + 7456 + 4480 + 1792);
  EXPECT_EQ(m.training_peak(), m.step_peak() + 8000);
}

// A LoRA run: the 1,000 model parameters are frozen (no gradient, no AdamW moments);
// one adapter r 2 on c_attn [8 -> 24] has 2 x (8 + 24) = 64 parameters, which have both,
// and keeps u and du [B, T, r] (docs/finetune.md, src/lora/lora.cpp); backward stops
// above the frozen embeddings, so there is no dpos [T, C].
TEST(Memory, LoraTrainsOnlyTheAdapters) {
  report::LoraAdapters lora;
  lora.r = 2;
  lora.description = "LoRA r 2 on c_attn";
  lora.layers = {{"transformer.h.0.attn.c_attn", 8, 24}};
  ASSERT_EQ(lora.parameters(), 64);
  const auto full = estimate_memory(memory_config(), 2, 4);
  const auto m = estimate_memory(memory_config(), 2, 4, true, &lora);
  EXPECT_EQ(m.parameters, 4 * (1000 + 64));
  EXPECT_EQ(m.gradients, 4 * 64);
  EXPECT_EQ(m.optimizer, 8 * 64);
  EXPECT_EQ(m.forward, full.forward + 4 * 8 * 2);             // u [BT, r]
  EXPECT_EQ(m.backward, full.backward + 4 * 8 * 2 - 4 * 32);  // + du [BT, r], - dpos [T, C]
  int64_t weights = 0;
  bool frozen_row = false;
  for (const auto& r : m.rows) {
    if (r.section == report::MemorySection::Weights) weights += r.bytes();
    frozen_row |= r.component.find("frozen") != std::string::npos;
    EXPECT_FALSE(r.component == "gradients" || r.component == "AdamW moments m, v") << r.component;
  }
  EXPECT_TRUE(frozen_row);
  EXPECT_EQ(weights, m.parameters + m.gradients + m.optimizer);
  lora.dropout = 0.1f;  // xd, its byte mask and dxd [BT, in]
  const auto d = estimate_memory(memory_config(), 2, 4, true, &lora);
  EXPECT_EQ(d.forward, m.forward + 4 * (64 + 16));
  EXPECT_EQ(d.backward, m.backward + 4 * 64);
}

TEST(Memory, DropoutBuffersOnlyWhenTraining) {
  GPTConfig c = memory_config();
  c.dropout = 0.1f;  // attention dropout follows it
  const auto base = estimate_memory(memory_config(), 2, 4);
  const auto train = estimate_memory(c, 2, 4, /*training=*/true);
  const auto eval = estimate_memory(c, 2, 4, /*training=*/false);
  // forward: embedding mask + output 128, residual masks + outputs 256; attention keeps
  // only its rows' lse with dropout too (the tiled kernels draw the mask again from its key)
  EXPECT_EQ(train.forward - base.forward, 4 * (128 + 256));
  // backward: residual dropout dx 128, embedding dropout dx 64
  EXPECT_EQ(train.backward - base.backward, 4 * (128 + 64));
  // a forward that is not training stores att (for attention maps), not lse
  EXPECT_EQ(eval.step_peak(), base.step_peak() + 4 * (64 - 16));
}

TEST(Memory, SinusoidalTableIsABuffer) {
  GPTConfig c = memory_config();
  c.position = PositionEncoding::Sinusoidal;
  const auto m = estimate_memory(c, 2, 4);
  EXPECT_EQ(m.parameters, 4 * (1000 - 32));
  EXPECT_EQ(m.buffers, 4 * 32);
}

TEST(Memory, RowsAddUp) {
  const auto m = estimate_memory(GPTConfig::preset("gpt2-124m"), 4, 1024);
  int64_t sum = 0;
  for (const auto& r : m.rows) sum += r.bytes();
  EXPECT_EQ(sum, m.training_peak());
  // Where attention weights are stored (not training), they
  // dominate at T = 1024: 12 layers x 4 x 12 x 1024^2 floats.
  const auto eval = estimate_memory(GPTConfig::preset("gpt2-124m"), 4, 1024, false);
  EXPECT_GT(eval.forward, int64_t{12} * 4 * 12 * 1024 * 1024 * 4);
  EXPECT_LT(m.forward, eval.forward);
}
