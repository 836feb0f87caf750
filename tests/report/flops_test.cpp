// FLOP estimates (report/flops.h) against hand arithmetic.
#include "report/flops.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/block_layers.h"
#include "util/error.h"

using namespace tinylm;
using report::estimate_flops;

TEST(Flops, AdditionModelByHand) {
  // V 14, C 32, F 64, L 2, batch 2 x seq 8 (16 tokens). Per token, per layer:
  //   c_attn 2*32*96 = 6,144; scores 2*8*32 = 512; weights @ v 512; c_proj 2*32*32 = 2,048
  //   c_fc 2*32*64 = 4,096; mlp.c_proj 4,096  -> 17,408 per layer, 34,816 for 2 layers
  //   head 2*32*14 = 896  -> forward 35,712 per token
  GPTConfig c;
  c.vocab_size = 14, c.block_size = 13, c.n_layer = 2, c.n_head = 2, c.d_model = 32, c.d_ff = 64;
  c.qkv_bias = c.attn_proj_bias = false;
  const auto f = estimate_flops(c, 2, 8);
  ASSERT_EQ(f.rows.size(), 7u);
  EXPECT_EQ(f.rows[0].per_layer, 6144);
  EXPECT_EQ(f.rows[1].per_layer, 512);
  EXPECT_EQ(f.rows[6].per_token(), 896);
  EXPECT_EQ(f.forward_per_token, 35712);
  EXPECT_EQ(f.attention_per_token, 2 * 1024);
  EXPECT_EQ(f.forward_per_step, 35712 * 16);   // 571,392
  EXPECT_EQ(f.backward_per_step, 2 * 571392);  // backward ~ 2 x forward
  EXPECT_EQ(f.train_per_step, 1714176);        // 3 x forward
  // 6N: N = 17,760 - 416 (wpe) = 17,344 -> 6 * 17,344 * 16 = 1,665,024
  EXPECT_EQ(f.six_n, 1665024);
  // Kaplan: N = 17,344 - 448 (wte) = 16,896 -> 1,622,016
  EXPECT_EQ(f.six_n_kaplan, 1622016);
  // + 12 L T C per token = 12*2*8*32 = 6,144 -> (104,064 + 6,144) * 16 = 1,763,328
  EXPECT_EQ(f.six_n_attention, 1763328);
}

TEST(Flops, NanoGptShakespeareStep) {
  // C 384, F 1,536, V 65, L 6, batch 64 x seq 256 (16,384 tokens). Per token, per layer:
  //   884,736 + 2 * 196,608 + 294,912 + 2 * 1,179,648 = 3,932,160; x6 = 23,592,960
  //   head 2*384*65 = 49,920 -> forward 23,642,880 per token
  GPTConfig c;
  c.vocab_size = 65, c.block_size = 256, c.n_layer = 6, c.n_head = 6, c.d_model = 384;
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = false;
  const auto f = estimate_flops(c, 64, 256);
  EXPECT_EQ(f.forward_per_token, 23642880);
  EXPECT_EQ(f.forward_per_step, 387364945920);
  EXPECT_EQ(f.train_per_step, 1162094837760);  // ~1.16 TFLOP per step
  EXPECT_EQ(f.six_n, 1046621454336);           // 6 * 10,646,784 * 16,384
  // Ours is 6 x (matmul weights) + 12 L T C per token; nanoGPT's 6N + 12 L T C differs
  // only by the LayerNorm gains in N: 6 * 13 * 384 per token.
  EXPECT_EQ(f.six_n_attention - f.train_per_step, 6 * 13 * 384 * int64_t{16384});
}

TEST(Flops, AttentionIsQuadraticPerSequence) {
  GPTConfig c = GPTConfig::preset("gpt2-124m");
  const auto a = estimate_flops(c, 1, 256), b = estimate_flops(c, 1, 512);
  // per sequence: attention 4 T^2 C per layer quadruples when T doubles
  EXPECT_EQ(b.attention_per_token * 512, 4 * a.attention_per_token * 256);
  EXPECT_EQ(a.attention_per_token, 12 * 4 * 256 * 768);
}

TEST(Flops, RejectsBadShapes) {
  GPTConfig c = GPTConfig::preset("gpt2-124m");
  EXPECT_THROW(estimate_flops(c, 0, 16), InputError);
  EXPECT_THROW(estimate_flops(c, 1, 1025), InputError);
  c.n_head = 5;  // 768 % 5 != 0
  EXPECT_THROW(estimate_flops(c, 1, 16), InputError);
}

// The llama family: q, k, v, o and three SwiGLU projections, attention over H * D (not
// C), and a KV cache that grouped-query attention shrinks to its kv heads.
TEST(Flops, LlamaFamilyByHand) {
  // V 50, C 48, H 4, KV 2, D 16 (H*D 64 != C), F 96, L 3, batch 1 x seq 10. Per token, per
  // layer: q 2*48*64 = 6,144; k, v 2*48*32 = 3,072 each; scores 2*10*64 = 1,280, weights
  // @ v 1,280; o 2*64*48 = 6,144; gate, up 2*48*96 = 9,216 each; down 9,216 -> 48,640
  const GPTConfig c = GPTConfig::from_json({{"arch", "llama"},
                                            {"vocab_size", 50},
                                            {"block_size", 16},
                                            {"n_layer", 3},
                                            {"n_head", 4},
                                            {"n_kv_head", 2},
                                            {"head_dim", 16},
                                            {"d_model", 48},
                                            {"d_ff", 96}});
  const auto f = estimate_flops(c, 1, 10);
  ASSERT_EQ(f.rows.size(), 10u);
  EXPECT_EQ(f.rows[0].component, "self_attn.q_proj");
  EXPECT_EQ(f.rows[0].formula, "2 * C * H*D");
  EXPECT_EQ(f.rows[1].per_layer, 3072);
  EXPECT_EQ(f.rows[3].formula, "2 * T * H*D");
  EXPECT_EQ(f.rows[3].per_layer, 1280);
  EXPECT_EQ(f.rows[5].component, "self_attn.o_proj");
  EXPECT_EQ(f.rows[8].component, "mlp.down_proj");
  EXPECT_EQ(f.attention_per_token, 3 * 2 * 1280);
  EXPECT_EQ(f.forward_per_token, 3 * 48640 + 2 * 48 * 50);
  // 2 x layers x kv heads x D x 4 bytes: half of what 4 kv heads would cache
  EXPECT_EQ(report::kv_cache_bytes_per_token(c), 2 * 3 * 2 * 16 * 4);
}
