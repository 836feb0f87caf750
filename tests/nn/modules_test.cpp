// Finite-difference gradient checks for every module: forward, then backward of
// L = sum(y * r), against central differences of L in each input and parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/gradcheck.h"
#include "nn/embedding.h"
#include "nn/feed_forward.h"
#include "nn/layernorm.h"
#include "nn/linear.h"
#include "nn/multi_head_attention.h"
#include "nn/positional_encoding.h"
#include "nn/self_attention.h"
#include "nn/transformer_block.h"

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
    check_module("linear", lin, random_tensor({2, 3, 7}, rng),
                 [&](const Tensor& x) { return lin.forward(x); }, rng);
  }
}

TEST(ModuleGradients, LayerNorm) {
  Rng rng(2);
  for (bool bias : {true, false}) {
    LayerNorm ln(9, bias);
    ln.weight.value = random_tensor({9}, rng);
    if (bias) ln.bias.value = random_tensor({9}, rng);
    check_module("ln", ln, random_tensor({4, 9}, rng),
                 [&](const Tensor& x) { return ln.forward(x); }, rng);
  }
}

TEST(ModuleGradients, FeedForwardEachActivation) {
  Rng rng(3);
  for (auto act : {ops::Activation::GeluTanh, ops::Activation::GeluErf, ops::Activation::Relu}) {
    FeedForward ff(6, 10, act, true);
    ff.init(rng, 0.4f, 0.4f);
    check_module("ff", ff, random_tensor({2, 3, 6}, rng),
                 [&](const Tensor& x) { return ff.forward(x); }, rng, 1e-3f, 2e-2);
  }
}

TEST(ModuleGradients, SelfAttentionCausalAndUnmasked) {
  Rng rng(4);
  for (bool causal : {false, true}) {
    SelfAttention sa(6, 4, 5, true);
    sa.init(rng, 0.5f);
    ops::AttentionMask mask;
    mask.causal = causal;
    check_module("sa", sa, random_tensor({2, 5, 6}, rng),
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
  check_module("mha", mha, random_tensor({2, 5, 8}, rng), [&](const Tensor& x) {
    drop_rng.seed_with(99);
    return mha.forward(x, Context{true, &drop_rng}, mask);
  }, rng);
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
  check_module("mha", mha, x0, [&](const Tensor& x) { return forward(x, true); }, rng);
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
    check_module(pre_ln ? "pre" : "post", block, random_tensor({2, 4, 8}, rng),
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
  expect_grad_close("emb", emb.weight.value, analytic,
                    [&] { return dot(emb.forward(ids.data(), 5), r); }, 40);

  PositionalEncoding pe(6, 4, /*learned=*/true);
  pe.init(rng, 1.0f);
  pe.weight.grad.zero();
  const Tensor rp = random_tensor({3, 4}, rng);
  pe.forward(2, 3);
  pe.backward(rp);
  const Tensor pa = pe.weight.grad.clone();
  expect_grad_close("pos", pe.weight.value, pa, [&] { return dot(pe.forward(2, 3), rp); }, 24);
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
  for (Linear* l : {&single.w_q, &single.w_k, &single.w_v}) l->bias.value = random_tensor({dh}, rng);

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
    const Tensor y = mha.forward(x, Context{}, mask);    // [B, T, C]
    for (int64_t b = 0; b < B; ++b)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t d = 0; d < dh; ++d)
            EXPECT_NEAR(y[(b * T + t) * C + h * dh + d], y1[(b * T + t) * dh + d], 1e-6);
  }
}

}  // namespace
}  // namespace tinylm::nn
