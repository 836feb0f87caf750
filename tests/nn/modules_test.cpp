// Finite-difference gradient checks for every module: forward, then backward of
// L = sum(y * r), against central differences of L in each input and parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/gradcheck.h"
#include "nn/embedding.h"
#include "nn/feed_forward.h"
#include "nn/linear.h"
#include "nn/multi_head_attention.h"
#include "nn/norm.h"
#include "nn/positional_encoding.h"
#include "nn/rotary.h"
#include "nn/self_attention.h"
#include "nn/transformer_block.h"
#include "util/error.h"

namespace tinylm::nn {
namespace {

using testing::dot;
using testing::expect_grad_close;
using testing::random_tensor;

void zero_grads(ParameterList& params) {
  for (auto& p : params) p.param->grad.zero();
}

// Runs the standard check: analytic grads from one backward, then numeric ones for the
// input x and for every parameter.
template <class Module, class Forward>
void check_module(const std::string& name, Module& m, Tensor x, Forward forward, Rng& rng,
                  float eps = 1e-2f, double tol = 1e-2) {
  ParameterList params;
  m.parameters(params, name + ".");
  zero_grads(params);
  const Tensor y = forward(x);
  const Tensor r = random_tensor(y.shape(), rng);
  const Tensor dx = m.backward(r).clone();
  const auto loss = [&] { return dot(forward(x), r); };
  expect_grad_close(name + " input", x, dx, loss, 24, eps, tol);
  for (auto& p : params) {
    const Tensor analytic = p.param->grad.clone();
    expect_grad_close(p.name, p.param->value, analytic, loss, 24, eps, tol);
  }
}

TEST(ModuleGradients, Linear) {
  Rng rng(1);
  for (bool bias : {true, false}) {
    Linear lin(7, 5, bias);
    lin.init(rng, 0.5f);
    if (bias) lin.bias.value = random_tensor({5}, rng);
    check_module(
        "linear", lin, random_tensor({2, 3, 7}, rng),
        [&](const Tensor& x) { return lin.forward(x); }, rng);
  }
}

TEST(ModuleGradients, LayerNorm) {
  Rng rng(2);
  for (bool bias : {true, false}) {
    Norm ln(9, bias);
    ln.weight.value = random_tensor({9}, rng);
    if (bias) ln.bias.value = random_tensor({9}, rng);
    check_module(
        "ln", ln, random_tensor({4, 9}, rng), [&](const Tensor& x) { return ln.forward(x); }, rng);
  }
}

TEST(ModuleGradients, FeedForwardEachActivation) {
  Rng rng(3);
  for (auto act : {ops::Activation::GeluTanh, ops::Activation::GeluErf, ops::Activation::Relu}) {
    FeedForward ff(6, 10, act, true);
    ff.init(rng, 0.4f, 0.4f);
    check_module(
        "ff", ff, random_tensor({2, 3, 6}, rng), [&](const Tensor& x) { return ff.forward(x); },
        rng, 1e-3f, 2e-2);
  }
}

TEST(ModuleGradients, SelfAttentionCausalAndUnmasked) {
  Rng rng(4);
  for (bool causal : {false, true}) {
    SelfAttention sa(6, 4, 5, true);
    sa.init(rng, 0.5f);
    ops::AttentionMask mask;
    mask.causal = causal;
    check_module(
        "sa", sa, random_tensor({2, 5, 6}, rng),
        [&](const Tensor& x) { return sa.forward(x, mask); }, rng);
  }
}

TEST(ModuleGradients, MultiHeadAttentionWithDropout) {
  Rng rng(5);
  MultiHeadAttention mha(8, 2, true, true, 0.25f);
  mha.init(rng, 0.4f, 0.4f);
  ops::AttentionMask mask;
  mask.causal = true;
  Rng drop_rng(99);
  // Reseeding before every forward makes each evaluation draw the same dropout mask.
  check_module(
      "mha", mha, random_tensor({2, 5, 8}, rng),
      [&](const Tensor& x) {
        drop_rng.seed_with(99);
        return mha.forward(x, Context{true, &drop_rng}, mask);
      },
      rng);
}

// Training without attention dropout takes the tiled kernel (no stored weights): the
// same output as the stored-weights path, and gradients that pass finite differences,
// with a causal and a per-sequence padding mask whose buffer is gone before backward.
TEST(ModuleGradients, MultiHeadAttentionTrainingTiledPath) {
  Rng rng(15);
  const int64_t B = 2, T = 5;
  MultiHeadAttention mha(8, 2, true, true, 0.0f);
  mha.init(rng, 0.4f, 0.4f);
  std::vector<uint8_t> keep(B * T * T, 1);
  for (int64_t i = 0; i < T; ++i) keep[(1 * T + i) * T + 4] = 0;  // sequence 1: key 4 hidden
  const Tensor x0 = random_tensor({B, T, 8}, rng);
  auto forward = [&](const Tensor& x, bool training) {
    std::vector<float> additive = ops::mask_from_bool(keep.data(), keep.size());
    const ops::AttentionMask mask{true, additive.data(), B};
    return mha.forward(x, Context{training, nullptr}, mask).clone();  // additive freed here
  };
  const Tensor eval_y = forward(x0, false), train_y = forward(x0, true);
  for (int64_t i = 0; i < eval_y.numel(); ++i) EXPECT_NEAR(train_y[i], eval_y[i], 1e-5) << i;
  check_module(
      "mha", mha, x0, [&](const Tensor& x) { return forward(x, true); }, rng);
}

TEST(ModuleGradients, TransformerBlockPreAndPostLN) {
  Rng rng(6);
  for (bool pre_ln : {true, false}) {
    BlockConfig c;
    c.d_model = 8, c.n_head = 2, c.d_ff = 32;
    c.pre_ln = pre_ln;
    c.dropout = c.attn_dropout = 0.1f;
    TransformerBlock block(c);
    block.init(rng, 0.3f, 0.3f);
    ops::AttentionMask mask;
    mask.causal = true;
    Rng drop_rng(7);
    check_module(
        pre_ln ? "pre" : "post", block, random_tensor({2, 4, 8}, rng),
        [&](const Tensor& x) {
          drop_rng.seed_with(7);
          return block.forward(x, Context{true, &drop_rng}, mask);
        },
        rng, 1e-2f, 2e-2);
  }
}

TEST(ModuleGradients, EmbeddingAndLearnedPositions) {
  Rng rng(8);
  Embedding emb(10, 4);
  emb.init(rng, 1.0f);
  const std::vector<int32_t> ids = {3, 1, 3, 9, 0};
  ParameterList params;
  emb.parameters(params, "emb.");
  zero_grads(params);
  const Tensor r = random_tensor({5, 4}, rng);
  emb.forward(ids.data(), 5);
  emb.backward(r);
  const Tensor analytic = emb.weight.grad.clone();
  expect_grad_close(
      "emb", emb.weight.value, analytic, [&] { return dot(emb.forward(ids.data(), 5), r); }, 40);

  PositionalEncoding pe(6, 4, /*learned=*/true);
  pe.init(rng, 1.0f);
  pe.weight.grad.zero();
  const Tensor rp = random_tensor({3, 4}, rng);
  pe.forward(2, 3);
  pe.backward(rp);
  const Tensor pa = pe.weight.grad.clone();
  expect_grad_close(
      "pos", pe.weight.value, pa, [&] { return dot(pe.forward(2, 3), rp); }, 24);
}

TEST(PositionalEncoding, SinusoidalMatchesTheFormula) {
  const Tensor pe = sinusoidal_table(50, 8);
  for (int p : {0, 1, 17, 49}) {
    for (int i = 0; i < 4; ++i) {
      const double angle = p / std::pow(10000.0, 2.0 * i / 8);
      EXPECT_NEAR(pe[p * 8 + 2 * i], std::sin(angle), 1e-6);
      EXPECT_NEAR(pe[p * 8 + 2 * i + 1], std::cos(angle), 1e-6);
    }
  }
  PositionalEncoding fixed(50, 8, /*learned=*/false);
  ParameterList params;
  fixed.parameters(params, "pe.");
  EXPECT_TRUE(params.empty());  // nothing to train
}

// A multi-head attention whose every head is given the same W_Q/W_K/W_V as a single-head
// SelfAttention (and an identity output projection) outputs, per head, exactly that
// single head's output.
TEST(MultiHeadAttention, EachHeadEqualsSingleHeadAttentionWithItsWeights) {
  Rng rng(10);
  const int64_t C = 12, H = 3, dh = C / H, B = 2, T = 5;
  SelfAttention single(C, dh, dh, /*bias=*/true);
  single.init(rng, 0.3f);
  for (Linear* l : {&single.w_q, &single.w_k, &single.w_v})
    l->bias.value = random_tensor({dh}, rng);

  MultiHeadAttention mha(C, H, true, true, 0.0f);
  // c_attn rows [s*C + h*dh, s*C + h*dh + dh) = the projection s (q, k, v) for head h.
  Linear* proj[3] = {&single.w_q, &single.w_k, &single.w_v};
  for (int s = 0; s < 3; ++s)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t r = 0; r < dh; ++r) {
        const int64_t row = s * C + h * dh + r;
        for (int64_t c = 0; c < C; ++c)
          mha.c_attn.weight.value[row * C + c] = proj[s]->weight.value[r * C + c];
        mha.c_attn.bias.value[row] = proj[s]->bias.value[r];
      }
  mha.c_proj.weight.value.zero();
  for (int64_t i = 0; i < C; ++i) mha.c_proj.weight.value[i * C + i] = 1.0f;
  mha.c_proj.bias.value.zero();

  for (bool causal : {false, true}) {
    ops::AttentionMask mask;
    mask.causal = causal;
    const Tensor x = random_tensor({B, T, C}, rng);
    const Tensor y1 = single.forward(x, mask).clone();  // [B, T, dh]
    const Tensor y = mha.forward(x, Context{}, mask);   // [B, T, C]
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t d = 0; d < dh; ++d)
            EXPECT_NEAR(y[(b * T + t) * C + h * dh + d], y1[(b * T + t) * dh + d], 1e-6);
  }
}

// ---- The llama family's modules ----

TEST(ModuleGradients, RmsNorm) {
  Rng rng(20);
  for (int64_t C : {9, 64}) {
    Norm norm(C, false, 1e-5f, NormKind::kRmsNorm);
    norm.weight.value = random_tensor({C}, rng);
    check_module(
        "rms", norm, random_tensor({4, C}, rng), [&](const Tensor& x) { return norm.forward(x); },
        rng);
  }
}

TEST(ModuleGradients, GatedFeedForward) {
  Rng rng(21);
  BlockConfig c;
  c.d_model = 6, c.d_ff = 11, c.gated = true, c.ffn_bias = false;
  FeedForward ff(c);
  ff.init(rng, 0.5f, 0.5f);
  ParameterList names;
  ff.parameters(names, "");
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0].name, "gate_proj.weight");
  EXPECT_EQ(names[1].name, "up_proj.weight");
  EXPECT_EQ(names[2].name, "down_proj.weight");
  check_module(
      "swiglu", ff, random_tensor({2, 3, 6}, rng), [&](const Tensor& x) { return ff.forward(x); },
      rng, 1e-3f, 2e-2);
}

// The llama family's attention config: H query heads over KV key/value heads of width D
// (H * D apart from C), rotary, optionally Qwen3's q/k norms and Qwen2's q/k/v biases.
BlockConfig llama_attention(int64_t H, int64_t KV, int64_t D, bool qk_norm, bool bias) {
  BlockConfig c;
  c.naming = Naming::kLlama;
  c.d_model = 8, c.n_head = H, c.n_kv_head = KV, c.head_dim = D;
  c.rotary = true, c.qk_norm = qk_norm, c.qkv_bias = bias, c.attn_proj_bias = false;
  c.norm_eps = 1e-6f;
  return c;
}

// Grouped-query attention (group sizes 1, 2, 4: multi-head to multi-query) with RoPE at
// a large base, through the stored-weights and the tiled (training) paths.
TEST(ModuleGradients, GroupedQueryAttentionWithRotaryAndQkNorm) {
  Rng rng(22);
  const RotaryTables rope(1000.0f, {}, 6, 16);
  for (int64_t KV : {4, 2, 1})
    for (bool qk_norm : {false, true}) {
      MultiHeadAttention attn(llama_attention(4, KV, 6, qk_norm, KV == 2));
      attn.init(rng, 0.4f, 0.4f);
      if (qk_norm) attn.q_norm.weight.value = random_tensor({6}, rng);
      ops::AttentionMask mask;
      mask.causal = true;
      for (bool training : {false, true}) {
        const std::string name = "gqa KV " + std::to_string(KV) + (qk_norm ? " qk_norm" : "") +
                                 (training ? " tiled" : "");
        check_module(
            name, attn, random_tensor({2, 5, 8}, rng),
            [&](const Tensor& x) {
              return attn.forward(x, Context{training, nullptr}, mask, &rope);
            },
            rng, 1e-2f, 2e-2);
      }
    }
}

// A key/value head shared by a group equals that head given to each query head of the
// group: KV = 2 against KV = 4 with the k and v rows of each group repeated.
TEST(MultiHeadAttention, GroupedQueryEqualsRepeatedKeyValueHeads) {
  Rng rng(23);
  const int64_t D = 4, B = 2, T = 6, C = 8;
  const RotaryTables rope(10000.0f, {}, D, 16);
  MultiHeadAttention grouped(llama_attention(4, 2, D, true, true));
  grouped.init(rng, 0.4f, 0.4f);
  grouped.k_proj.bias.value = random_tensor({2 * D}, rng);
  grouped.k_norm.weight.value = random_tensor({D}, rng);
  MultiHeadAttention full(llama_attention(4, 4, D, true, true));
  full.q_proj.weight.value.copy_from(grouped.q_proj.weight.value);
  full.q_proj.bias.value.copy_from(grouped.q_proj.bias.value);
  full.c_proj.weight.value.copy_from(grouped.c_proj.weight.value);
  full.q_norm.weight.value.copy_from(grouped.q_norm.weight.value);
  full.k_norm.weight.value.copy_from(grouped.k_norm.weight.value);
  for (auto [g, f] : {std::pair{&grouped.k_proj, &full.k_proj}, {&grouped.v_proj, &full.v_proj}})
    for (int64_t h = 0; h < 4; ++h)  // full's head h = grouped's head h / 2
      for (int64_t r = 0; r < D; ++r) {
        const int64_t from = (h / 2) * D + r, to = h * D + r;
        for (int64_t c = 0; c < C; ++c) f->weight.value[to * C + c] = g->weight.value[from * C + c];
        f->bias.value[to] = g->bias.value[from];
      }
  ops::AttentionMask mask;
  mask.causal = true;
  const Tensor x = random_tensor({B, T, C}, rng);
  const Tensor y_grouped = grouped.forward(x, Context{}, mask, &rope).clone();
  const Tensor y_full = full.forward(x, Context{}, mask, &rope);
  for (int64_t i = 0; i < y_full.numel(); ++i) EXPECT_NEAR(y_grouped[i], y_full[i], 1e-5) << i;
}

// Rotary attention refuses to run without the model's tables.
TEST(MultiHeadAttention, RotaryAttentionNeedsTheTables) {
  MultiHeadAttention attn(llama_attention(2, 1, 4, false, false));
  ops::AttentionMask mask;
  EXPECT_THROW(attn.forward(Tensor::zeros({1, 3, 8}), Context{}, mask), InputError);
}

TEST(ModuleGradients, LlamaBlock) {
  Rng rng(24);
  BlockConfig c = llama_attention(4, 2, 6, false, false);
  c.d_ff = 12, c.gated = true, c.rms_norm = true, c.ffn_bias = false, c.ln_bias = false;
  TransformerBlock block(c);
  block.init(rng, 0.3f, 0.3f);
  block.ln_1.weight.value = random_tensor({8}, rng);
  const RotaryTables rope(10000.0f, {}, 6, 8);
  ParameterList names;
  block.parameters(names, "");
  EXPECT_EQ(names.front().name, "input_layernorm.weight");
  EXPECT_EQ(names[1].name, "self_attn.q_proj.weight");
  ops::AttentionMask mask;
  mask.causal = true;
  check_module(
      "llama block", block, random_tensor({2, 4, 8}, rng),
      [&](const Tensor& x) {
        return block.forward(x, Context{true, nullptr}, mask, &rope);
      },
      rng, 1e-2f, 2e-2);
}

}  // namespace
}  // namespace tinylm::nn
