// MEASUREMENT: the closed-form estimates against a real model (links src/model, src/nn,
// src/ops and runs real forward_loss + backward steps).
//   memory: predicted step peak (parameters + gradients + activations) vs
//           (a) bytes the model allocates through operator new (tests/common/heap_counter.h)
//           (b) growth of the process's peak RSS
//   FLOPs:  predicted forward matmul FLOPs vs the FLOPs implied by the shapes of the
//           model instance's Linear layers, attention matrices and logits.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/heap_counter.h"
#include "model/gpt.h"
#include "report/flops.h"
#include "report/memory.h"
#include "report/peak_rss.h"

using namespace tinylm;
using namespace tinylm::report;
using namespace tinylm::testing;

namespace {

// Big enough that activations dominate: B 8, T 128, C 128, 2 layers, vocab 65.
constexpr int64_t kBatch = 8, kSeq = 128;

GPTConfig measured_config() {
  GPTConfig c;
  c.vocab_size = 65, c.block_size = kSeq, c.n_layer = 2, c.n_head = 4, c.d_model = 128;
  return c;
}

struct Batch {
  std::vector<int32_t> ids, targets;
};

Batch random_batch(const GPTConfig& c, Rng& rng) {
  Batch b;
  for (int64_t i = 0; i < kBatch * kSeq; ++i) {
    b.ids.push_back(static_cast<int32_t>(rng.below(c.vocab_size)));
    b.targets.push_back(static_cast<int32_t>(rng.below(c.vocab_size)));
  }
  return b;
}

// Two steps: the second reuses every buffer, so its peak is the steady state the
// estimate describes (the first allocates the last block's backward buffers late).
void train_steps(GPT& model, const Batch& b, Rng& rng) {
  const nn::Context ctx{/*training=*/true, &rng};
  for (int step = 0; step < 2; ++step) {
    model.zero_grad();
    model.forward_loss(b.ids.data(), b.targets.data(), kBatch, kSeq, ctx);
    model.backward();
  }
}

// Forward matmul FLOPs from what the instance holds after a forward pass.
int64_t instance_forward_flops(GPT& model) {
  int64_t flops = 0;
  const int64_t tokens = kBatch * kSeq;
  const auto linear = [&](const nn::Linear& l) {
    return 2 * tokens * l.in_features() * l.out_features();
  };
  for (auto& block : model.h) {
    flops += linear(block.attn.c_attn) + linear(block.attn.c_proj);
    flops += linear(block.mlp.c_fc) + linear(block.mlp.c_proj);
    const Tensor& att = block.attn.attention();  // [B, H, Tq, Tk], computed densely
    const int64_t dh = block.attn.c_proj.in_features() / block.attn.n_head();
    const int64_t pairs = att.dim(0) * att.dim(1) * att.dim(2) * att.dim(3);
    flops += 2 * pairs * dh;  // scores q k^T
    flops += 2 * pairs * dh;  // att @ v
  }
  const Tensor& head = model.head_weight().value;  // [V, C]
  flops += 2 * tokens * head.dim(1) * head.dim(0);
  return flops;
}

}  // namespace

TEST(Measured, HeapBytesMatchMemoryEstimate) {
  std::vector<GPTConfig> configs = {measured_config()};
  GPTConfig c = measured_config();
  c.dropout = 0.1f;  // dropout masks and outputs on embeddings, residuals, attention
  configs.push_back(c);
  c.pre_ln = false, c.position = PositionEncoding::Sinusoidal, c.tie_head = false;
  configs.push_back(c);
  // the llama family: grouped-query attention (k, v repeated to the query heads), a head
  // width apart from C / H, Qwen3's q/k norms, SwiGLU, rotary tables
  GPTConfig llama = GPTConfig::from_json({{"arch", "llama"},
                                          {"vocab_size", 65},
                                          {"block_size", kSeq},
                                          {"n_layer", 2},
                                          {"n_head", 4},
                                          {"n_kv_head", 2},
                                          {"d_model", 128},
                                          {"d_ff", 344}});
  configs.push_back(llama);
  llama.head_dim = 48, llama.qk_norm = true, llama.tie_head = true, llama.dropout = 0.1f;
  configs.push_back(llama);
  for (const auto& config : configs) {
    Rng rng(1);
    const Batch b = random_batch(config, rng);
    const int64_t predicted = estimate_memory(config, kBatch, kSeq).step_peak();
    nn::MultiHeadAttention::release_backward_buffers();  // shared by models: start empty
    reset_heap_peak();
    const int64_t before = heap_live_bytes();
    int64_t measured = 0;
    {
      GPT model(config);
      model.init(rng);
      train_steps(model, b, rng);
      measured = heap_peak_bytes() - before;
    }
    const double ratio = static_cast<double>(predicted) / static_cast<double>(measured);
    std::printf("heap: predicted %lld bytes, allocated %lld bytes, ratio %.4f\n",
                static_cast<long long>(predicted), static_cast<long long>(measured), ratio);
    EXPECT_GT(ratio, 0.97) << config.to_json().dump();
    EXPECT_LT(ratio, 1.03) << config.to_json().dump();
  }
}

TEST(Measured, PeakRssMatchesMemoryEstimate) {
  const GPTConfig c = measured_config();
  Rng rng(2);
  const Batch b = random_batch(c, rng);
  prepare_rss_measurement();
  {  // warm-up: OpenMP threads and OpenBLAS buffers exist before the baseline
    GPT warm(c);
    train_steps(warm, b, rng);
  }
  prepare_rss_measurement();
  if (!reset_peak_rss()) GTEST_SKIP() << "this kernel does not let us reset the peak RSS";
  const int64_t before = current_rss_bytes();
  int64_t peak = 0;
  {
    GPT model(c);
    model.init(rng);
    train_steps(model, b, rng);
    peak = peak_rss_bytes();
  }
  const int64_t predicted = estimate_memory(c, kBatch, kSeq).step_peak();
  const double ratio = static_cast<double>(predicted) / static_cast<double>(peak - before);
  std::printf(
      "rss: predicted %.1f MiB, peak RSS growth %.1f MiB (ru_maxrss %.1f MiB), "
      "ratio %.3f\n",
      predicted / 1048576.0, (peak - before) / 1048576.0, ru_maxrss_bytes() / 1048576.0, ratio);
  EXPECT_GT(ratio, 0.7);
  EXPECT_LT(ratio, 1.3);
}

TEST(Measured, ForwardFlopsMatchInstanceShapes) {
  std::vector<GPTConfig> configs = {measured_config()};
  GPTConfig c = measured_config();
  c.tie_head = false, c.d_ff = 200, c.n_head = 8, c.n_layer = 3;
  configs.push_back(c);
  for (const auto& config : configs) {
    GPT model(config);
    Rng rng(3);
    model.init(rng);
    const Batch b = random_batch(config, rng);
    const Tensor logits = model.forward(b.ids.data(), kBatch, kSeq);
    ASSERT_EQ(logits.shape(), (Shape{kBatch, kSeq, config.vocab_size}));
    EXPECT_EQ(estimate_flops(config, kBatch, kSeq).forward_per_step, instance_forward_flops(model));
  }
}
