// MEASUREMENT: the memory plan. After the first step has sized every buffer, a training
// step (forward, backward, clipping, AdamW) and a decoding step (one token through the KV
// cache) allocate nothing: the heap counter (tests/common/heap_counter.h, included in this one
// file of the test program) counts every operator new of a step. oneDNN's sgemm allocates
// a small object on every call, inside the library; those calls are counted apart and
// reported, not charged to tinylm.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "common/heap_counter.h"
#include "decode/decode_context.h"
#include "model/gpt.h"
#include "ops/matmul_bf16.h"
#include "optim/adamw.h"

namespace tinylm {
namespace {

constexpr int64_t kBatch = 4, kSeq = 64;

GPTConfig small_config(double dropout, bool pre_ln) {
  GPTConfig c;
  c.vocab_size = 65, c.block_size = kSeq, c.n_layer = 2, c.n_head = 4, c.d_model = 64;
  c.dropout = dropout;
  c.pre_ln = pre_ln;
  return c;
}

std::vector<int32_t> random_ids(int64_t n, int64_t vocab, Rng& rng) {
  std::vector<int32_t> ids(n);
  for (auto& id : ids) id = static_cast<int32_t>(rng.below(vocab));
  return ids;
}

// Allocations made by tinylm (not by the math libraries) while f runs; printed if asked.
template <class F>
int64_t allocations_during(F&& f, bool print = false) {
  testing::split_math_libraries(true);
  const int64_t all = testing::heap_allocations();
  const int64_t library = testing::heap_allocations_by_math_libraries();
  f();
  const int64_t by_library = testing::heap_allocations_by_math_libraries() - library;
  const int64_t by_tinylm = testing::heap_allocations() - all - by_library;
  testing::split_math_libraries(false);
  if (print)
    std::printf("  %lld allocations by tinylm, %lld inside the math library\n",
                static_cast<long long>(by_tinylm), static_cast<long long>(by_library));
  return by_tinylm;
}

TEST(MeasuredMemoryPlan, TrainingStepsAfterTheFirstAllocateNothing) {
  for (const bool pre_ln : {true, false}) {
    for (const double dropout : {0.0, 0.1}) {
      const GPTConfig c = small_config(dropout, pre_ln);
      GPT model(c);
      Rng rng(1);
      model.init(rng);
      const std::vector<int32_t> ids = random_ids(kBatch * kSeq, c.vocab_size, rng);
      const std::vector<int32_t> targets = random_ids(kBatch * kSeq, c.vocab_size, rng);
      const ParameterList params = model.parameters();
      AdamW opt(params, AdamWConfig{});
      const nn::Context ctx{true, &rng};
      for (int step = 1; step <= 3; ++step) {
        std::printf("pre_ln %d, dropout %.1f, training step %d:", pre_ln, dropout, step);
        const int64_t allocations = allocations_during(
            [&] {
              for (const auto& p : params) p.param->grad.zero();  // as the run session does
              model.forward_loss(ids.data(), targets.data(), kBatch, kSeq, ctx);
              model.backward();
              clip_gradients(params, 1.0);
              opt.step(1e-3f);
            },
            /*print=*/true);
        if (step > 1) {
          EXPECT_EQ(allocations, 0) << "training step " << step;
        }
      }
    }
  }
}

// The same with the linear layers' products in bf16 (ops/matmul_bf16.h): the operand
// buffers, scratchpads and primitives are made by the first step and kept.
TEST(MeasuredMemoryPlan, Bf16TrainingStepsAfterTheFirstAllocateNothing) {
  ops::set_cpu_matmul_precision(ops::MatmulPrecision::kBf16);
  const GPTConfig c = small_config(0.1, true);
  GPT model(c);
  Rng rng(1);
  model.init(rng);
  const std::vector<int32_t> ids = random_ids(kBatch * kSeq, c.vocab_size, rng);
  const std::vector<int32_t> targets = random_ids(kBatch * kSeq, c.vocab_size, rng);
  const ParameterList params = model.parameters();
  AdamW opt(params, AdamWConfig{});
  const nn::Context ctx{true, &rng};
  for (int step = 1; step <= 3; ++step) {
    std::printf("bf16 training step %d:", step);
    const int64_t allocations = allocations_during(
        [&] {
          for (const auto& p : params) p.param->grad.zero();
          model.forward_loss(ids.data(), targets.data(), kBatch, kSeq, ctx);
          model.backward();
          clip_gradients(params, 1.0);
          opt.step(1e-3f);
        },
        /*print=*/true);
    if (step > 1) {
      EXPECT_EQ(allocations, 0) << "bf16 training step " << step;
    }
  }
  ops::set_cpu_matmul_precision(ops::MatmulPrecision::kFp32);
}

// A model without dropout, initialised from rng.
GPT decoding_model(bool pre_ln, Rng& rng) {
  GPT model(small_config(0.0, pre_ln));
  model.init(rng);
  return model;
}

TEST(MeasuredMemoryPlan, DecodingStepsAfterTheFirstAllocateNothing) {
  for (const bool pre_ln : {true, false}) {
    for (const decode::DecodeWeights type :
         {decode::DecodeWeights::kF32, decode::DecodeWeights::kF16, decode::DecodeWeights::kBf16,
          decode::DecodeWeights::kQ8_0}) {
      Rng rng(2);
      GPT model = decoding_model(pre_ln, rng);
      DecodeContext decoder(model, type);
      const std::vector<int32_t> ids = random_ids(kSeq, 65, rng);
      KVCache cache(model.config());
      decoder.forward(ids.data(), 8, cache);  // the prompt
      for (int64_t t = 8; t < kSeq; ++t) {
        const int64_t allocations =
            allocations_during([&] { decoder.forward(ids.data() + t, 1, cache); });
        if (t > 8) {
          EXPECT_EQ(allocations, 0) << "decoding step at position " << t;
        }
      }
    }
  }
}

// A prompt after decoding steps (a server's next request, a benchmark's next round) reads
// the buffers the first prompt sized: every module's buffer keeps its largest shape and
// serves the smaller ones. Before, each prompt after a decoding step allocated its
// activations again, and the fresh pages faulted in during the prompt.
TEST(MeasuredMemoryPlan, APromptAfterDecodingStepsAllocatesNothing) {
  for (const decode::DecodeWeights type :
       {decode::DecodeWeights::kF32, decode::DecodeWeights::kQ8_0}) {
    Rng rng(3);
    GPT model = decoding_model(/*pre_ln=*/true, rng);
    DecodeContext decoder(model, type);
    const std::vector<int32_t> ids = random_ids(kSeq, 65, rng);
    KVCache first(model.config());
    decoder.forward(ids.data(), 40, first);  // past the row-invariant products' rows
    for (int64_t t = 40; t < 44; ++t) decoder.forward(ids.data() + t, 1, first);
    for (const int64_t rows : {40, 24}) {  // the same prompt length, then a shorter one
      KVCache next(model.config());
      const int64_t allocations =
          allocations_during([&] { decoder.forward(ids.data(), rows, next); });
      EXPECT_EQ(allocations, 0) << "a prompt of " << rows << " rows after decoding steps";
      decoder.forward(ids.data() + rows, 1, next);
    }
  }
}

}  // namespace
}  // namespace tinylm
