// trace_input on small random GPTs: causal attention rows that sum to 1, embedding
// dimensions read straight from the weights, residual norms equal to an independent
// pre-LN computation from the block's own modules, a final residual that gives
// model.forward's logits through ln_f and the head, and top tokens that are the softmax
// of model.forward's last row.
#include "report/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/gradcheck.h"
#include "ops/matmul.h"
#include "report/random_gpt.h"
#include "util/error.h"

namespace tinylm::report {
namespace {

struct Variant {
  const char* name;
  PositionEncoding position;
  bool pre_ln;
  bool tie_head;
};

const Variant kVariants[] = {
    {"learned, pre-LN, tied head", PositionEncoding::Learned, true, true},
    {"sinusoidal, pre-LN, untied head with bias", PositionEncoding::Sinusoidal, true, false},
    {"learned, post-LN, tied head", PositionEncoding::Learned, false, true},
    {"llama: rotary, RMSNorm, SwiGLU, 2 heads on 1 kv head", PositionEncoding::Rotary, true, true},
};

GPTConfig config_of(const Variant& v) {
  if (v.position == PositionEncoding::Rotary)
    return GPTConfig::from_json({{"arch", "llama"},
                                 {"vocab_size", 11},
                                 {"block_size", 9},
                                 {"n_layer", 2},
                                 {"n_head", 2},
                                 {"n_kv_head", 1},
                                 {"d_model", 12},
                                 {"d_ff", 20},
                                 {"tie_head", v.tie_head}});
  GPTConfig c;
  c.vocab_size = 11, c.block_size = 9, c.n_layer = 2, c.n_head = 2, c.d_model = 12;
  c.position = v.position, c.pre_ln = v.pre_ln, c.tie_head = v.tie_head;
  c.head_bias = !v.tie_head;
  return c;
}

using testing::random_gpt;
using testing::random_ids;

float norm_of_row(const Tensor& x, int64_t t, int64_t C) {
  double s = 0.0;
  for (int64_t c = 0; c < C; ++c) s += static_cast<double>(x[t * C + c]) * x[t * C + c];
  return static_cast<float>(std::sqrt(s));
}

// Position p's encoding, dimension d, from the formulas in nn/positional_encoding.h.
float position_value(const GPT& model, int64_t p, int64_t d) {
  const int64_t C = model.config().d_model;
  if (model.config().position == PositionEncoding::Learned)
    return model.wpe.weight.value[p * C + d];
  if (model.config().position == PositionEncoding::Rotary) return 0.0f;  // turns q, k instead
  const double angle = p / std::pow(10000.0, static_cast<double>(d - d % 2) / C);
  return static_cast<float>(d % 2 == 0 ? std::sin(angle) : std::cos(angle));
}

TEST(Trace, AttentionRowsSumToOneAndAreCausal) {
  for (const Variant& v : kVariants) {
    GPT model = random_gpt(config_of(v), 5);
    Rng rng(1);
    const int64_t T = 7;
    const Trace trace = trace_input(model, random_ids(T, 11, rng));
    ASSERT_EQ(trace.blocks.size(), 2u) << v.name;
    for (const BlockTrace& block : trace.blocks) {
      ASSERT_EQ(block.attention.shape(), (Shape{2, T, T})) << v.name;
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t q = 0; q < T; ++q) {
          const float* row = block.attention.data() + (h * T + q) * T;
          double sum = 0.0;
          for (int64_t k = 0; k < T; ++k) {
            if (k > q) {
              EXPECT_EQ(row[k], 0.0f) << v.name << " head " << h << " query " << q;
            }
            EXPECT_GE(row[k], 0.0f);
            sum += row[k];
          }
          EXPECT_NEAR(sum, 1.0, 1e-5) << v.name << " head " << h << " query " << q;
        }
    }
  }
}

TEST(Trace, EmbeddingDimensionsAreTheWeights) {
  for (const Variant& v : kVariants) {
    GPT model = random_gpt(config_of(v), 6);
    const int64_t C = model.config().d_model, T = 9;
    Rng rng(2);
    const std::vector<int32_t> ids = random_ids(T, 11, rng);
    const Trace trace = trace_input(model, ids, /*dims=*/5);
    ASSERT_EQ(trace.dims, 5);
    const bool rotary = v.position == PositionEncoding::Rotary;
    EXPECT_EQ(trace.positions, rotary                                    ? "rotary"
                               : v.position == PositionEncoding::Learned ? "learned"
                                                                         : "sinusoidal");
    EXPECT_EQ(trace.position_embedding.size(), rotary ? 0u : static_cast<size_t>(T * 5));
    ASSERT_EQ(trace.token_embedding.size(), static_cast<size_t>(T * 5));
    for (int64_t t = 0; t < T; ++t) {
      double sum_sq = 0.0;
      for (int64_t d = 0; d < C; ++d) {
        const float tok = model.wte.weight.value[ids[t] * C + d];
        const float pos = position_value(model, t, d);
        sum_sq += static_cast<double>(tok + pos) * (tok + pos);
        if (d >= 5) continue;
        EXPECT_EQ(trace.token_embedding[t * 5 + d], tok) << v.name;
        if (!rotary) EXPECT_NEAR(trace.position_embedding[t * 5 + d], pos, 1e-5) << v.name;
        EXPECT_NEAR(trace.embedding_sum[t * 5 + d], tok + pos, 1e-5) << v.name;
      }
      EXPECT_NEAR(trace.input_norms[t], std::sqrt(sum_sq), 1e-4) << v.name << " position " << t;
    }
    // More dimensions than the model has: all of them.
    EXPECT_EQ(trace_input(model, ids, 100).dims, C);
  }
}

// Pre-LN: x_{l+1} = h + mlp(ln_2(h)), h = x_l + attn(ln_1(x_l)), from the block's parts.
TEST(Trace, ResidualNormsMatchAnIndependentComputation) {
  const Variant& v = kVariants[0];
  GPT model = random_gpt(config_of(v), 7);
  const int64_t C = model.config().d_model, T = 8;
  Rng rng(3);
  const std::vector<int32_t> ids = random_ids(T, 11, rng);
  const Trace trace = trace_input(model, ids);

  Tensor x = Tensor::empty({1, T, C});
  for (int64_t t = 0; t < T; ++t)
    for (int64_t d = 0; d < C; ++d)
      x[t * C + d] = model.wte.weight.value[ids[t] * C + d] + position_value(model, t, d);
  ops::AttentionMask causal;
  causal.causal = true;
  for (size_t l = 0; l < model.h.size(); ++l) {
    auto& block = model.h[l];
    const Tensor a = block.attn.forward(block.ln_1.forward(x), {}, causal).clone();
    const Tensor att = block.attn.attention();
    Tensor h = x.clone();
    for (int64_t i = 0; i < h.numel(); ++i) h[i] += a[i];
    const Tensor m = block.mlp.forward(block.ln_2.forward(h)).clone();
    Tensor y = h.clone();
    for (int64_t i = 0; i < y.numel(); ++i) y[i] += m[i];
    for (int64_t t = 0; t < T; ++t)
      EXPECT_NEAR(trace.blocks[l].residual_norms[t], norm_of_row(y, t, C), 1e-4)
          << "block " << l << " position " << t;
    for (int64_t i = 0; i < att.numel(); ++i)
      ASSERT_NEAR(trace.blocks[l].attention[i], att[i], 1e-6) << "block " << l;
    x = y;
  }
}

TEST(Trace, FinalResidualThroughLnFAndTheHeadGivesTheModelsLogits) {
  for (const Variant& v : kVariants) {
    GPT model = random_gpt(config_of(v), 8);
    const int64_t C = model.config().d_model, V = model.config().vocab_size, T = 6;
    Rng rng(4);
    const std::vector<int32_t> ids = random_ids(T, V, rng);
    const Trace trace = trace_input(model, ids);
    ASSERT_EQ(trace.final_residual.shape(), (Shape{T, C}));
    for (int64_t t = 0; t < T; ++t)
      EXPECT_NEAR(trace.blocks.back().residual_norms[t], norm_of_row(trace.final_residual, t, C),
                  1e-5);

    const Tensor normed = model.ln_f.forward(trace.final_residual).clone();
    const Tensor& head = model.head_weight().value;
    std::vector<float> logits(T * V);
    ops::ref::linear_forward(normed.data(), head.data(),
                             v.tie_head ? nullptr : model.lm_head_bias.value.data(), logits.data(),
                             T, C, V);
    const Tensor expected = model.forward(ids.data(), 1, T);
    for (int64_t i = 0; i < T * V; ++i) EXPECT_NEAR(logits[i], expected[i], 1e-4) << v.name;
  }
}

TEST(Trace, TopTokensAreTheSoftmaxOfTheLastLogits) {
  for (const Variant& v : kVariants) {
    GPT model = random_gpt(config_of(v), 9);
    const int64_t V = model.config().vocab_size, T = 5;
    Rng rng(5);
    const std::vector<int32_t> ids = random_ids(T, V, rng);
    const Trace trace = trace_input(model, ids, 8, /*top_k=*/5);
    const Tensor logits = model.forward(ids.data(), 1, T);

    const float* last = logits.data() + (T - 1) * V;
    const double max = *std::max_element(last, last + V);
    std::vector<double> probs(V);
    double total = 0.0;
    for (int64_t i = 0; i < V; ++i) total += probs[i] = std::exp(last[i] - max);
    for (auto& p : probs) p /= total;
    std::vector<int32_t> order(V);
    for (int32_t i = 0; i < V; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return probs[a] > probs[b]; });

    ASSERT_EQ(trace.top_next.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
      EXPECT_EQ(trace.top_next[i].id, order[i]) << v.name << " rank " << i;
      EXPECT_NEAR(trace.top_next[i].probability, probs[order[i]], 1e-5) << v.name;
    }
  }
}

TEST(Trace, MostAttendedPositionsAreTheHeaviestOfTheRow) {
  GPT model = random_gpt(config_of(kVariants[0]), 10);
  Rng rng(6);
  const int64_t T = 9;
  const Trace trace = trace_input(model, random_ids(T, 11, rng));
  for (int64_t q : {0, 4, 8}) {
    const auto top = most_attended(trace, 1, 1, q, 3);
    ASSERT_EQ(top.size(), static_cast<size_t>(std::min<int64_t>(3, q + 1)));
    const float* row = trace.blocks[1].attention.data() + (1 * T + q) * T;
    for (size_t i = 0; i < top.size(); ++i) {
      EXPECT_LE(top[i].position, q);
      EXPECT_EQ(top[i].weight, row[top[i].position]);
      if (i > 0) {
        EXPECT_GE(top[i - 1].weight, top[i].weight);
      }
    }
    // Nothing left out weighs more than the last one kept.
    for (int64_t p = 0; p <= q; ++p) {
      const bool kept = std::any_of(top.begin(), top.end(),
                                    [&](const AttendedPosition& a) { return a.position == p; });
      if (!kept) {
        EXPECT_LE(row[p], top.back().weight) << "query " << q << " position " << p;
      }
    }
  }
  EXPECT_THROW(most_attended(trace, 2, 0, 0, 3), InputError);
  EXPECT_THROW(most_attended(trace, 0, 2, 0, 3), InputError);
  EXPECT_THROW(most_attended(trace, 0, 0, T, 3), InputError);
}

TEST(Trace, RejectsAnEmptyOrTooLongInput) {
  GPT model = random_gpt(config_of(kVariants[0]), 11);
  EXPECT_THROW(trace_input(model, {}), InputError);
  try {
    trace_input(model, std::vector<int32_t>(10, 1));  // block_size is 9
    FAIL() << "a 10-token input was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("block_size 9"), std::string::npos) << e.what();
  }
  EXPECT_THROW(trace_input(model, {1, 2, 11}), InputError);  // id 11 >= vocab 11
}

}  // namespace
}  // namespace tinylm::report
