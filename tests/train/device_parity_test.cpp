// The whole model on another device (a GPU) against the same model on the CPU: loss,
// every gradient, AdamW steps, greedy decoding with the KV cache, and a checkpoint
// written from the device read back on the CPU. Skipped where no such device runs
// (every machine without a GPU); scripts/gpu-bundle.sh carries it to one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "backend/registry.h"
#include "generate/generate.h"
#include "model/gpt.h"
#include "optim/adamw.h"
#include "run/checkpoint.h"
#include "util/files.h"

namespace tinylm {
namespace {

// Devices other than the CPU that run here; the reason each other one does not.
std::vector<Device> devices_here(std::string* why_not) {
  std::vector<Device> out;
  for (const Backend* b : registered_backends()) {
    if (b->device == Device::kCpu) continue;
    std::string why;
    if (b->available(&why))
      out.push_back(b->device);
    else
      *why_not += std::string(b->name) + ": " + why + "; ";
  }
  return out;
}

// Odd sizes on purpose: no dimension a multiple of a warp or a block.
GPTConfig odd_config(float dropout) {
  GPTConfig c;
  c.vocab_size = 67, c.block_size = 19, c.n_layer = 2, c.n_head = 3, c.d_model = 21;
  c.d_ff = 4 * 21;
  c.dropout = dropout;
  c.attn_dropout = dropout;
  return c;
}

double rel_error(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, ref = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    ref += double(want[i]) * want[i];
  }
  return std::sqrt(diff / std::max(ref, 1e-30));
}

// Two models with the same weights: one stays on the CPU, one goes to `device`.
struct Pair {
  GPT cpu, dev;
  Pair(const GPTConfig& c, Device device) : cpu(c), dev(c) {
    Rng rng(7);
    cpu.init(rng);
    auto a = cpu.parameters(), b = dev.parameters();
    for (size_t i = 0; i < a.size(); ++i) b[i].param->value.copy_from(a[i].param->value);
    dev.to(device);
  }
  // The worst relative error over every parameter's value or gradient.
  double worst(bool grads) {
    double w = 0;
    auto a = cpu.parameters(), b = dev.parameters();
    for (size_t i = 0; i < a.size(); ++i) {
      const Tensor& x = grads ? a[i].param->grad : a[i].param->value;
      const Tensor& y = grads ? b[i].param->grad : b[i].param->value;
      w = std::max(w, rel_error(y.to_vector(), x.to_vector()));
    }
    return w;
  }
};

struct Batch {
  int64_t B = 3, T = 17;
  std::vector<int32_t> ids, targets;
  explicit Batch(int64_t V) {
    Rng rng(11);
    for (int64_t i = 0; i < B * T; ++i) {
      ids.push_back(static_cast<int32_t>(rng.below(V)));
      targets.push_back(static_cast<int32_t>(rng.below(V)));
    }
    targets[5] = -100;  // an ignored position
  }
};

// Skips the test where no device besides the CPU runs; devices_ lists those that do.
template <typename Base>
class OnDevices : public Base {
 protected:
  void SetUp() override {
    std::string why;
    devices_ = devices_here(&why);
    if (devices_.empty()) GTEST_SKIP() << "no device besides the CPU runs here: " << why;
  }
  std::vector<Device> devices_;
};
using GptOnDevice = OnDevices<::testing::TestWithParam<float>>;
using GptOnDeviceDecoding = OnDevices<::testing::Test>;
using GptOnDeviceCheckpoint = OnDevices<::testing::Test>;

// Loss, gradients and three AdamW steps (with gradient clipping), dropout included: the
// device draws the CPU's dropout masks from the same generator.
TEST_P(GptOnDevice, TrainingStepsMatchTheCpu) {
  const float dropout = GetParam();
  for (Device device : devices_) {
    Pair m(odd_config(dropout), device);
    const Batch b(m.cpu.config().vocab_size);
    AdamWConfig ac;
    AdamW opt_cpu(m.cpu.parameters(), ac), opt_dev(m.dev.parameters(), ac);
    Rng drop_cpu(3), drop_dev(3);
    for (int step = 0; step < 3; ++step) {
      m.cpu.zero_grad();
      m.dev.zero_grad();
      const double loss_cpu = m.cpu.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T,
                                                 {.training = true, .rng = &drop_cpu});
      const double loss_dev = m.dev.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T,
                                                 {.training = true, .rng = &drop_dev});
      EXPECT_NEAR(loss_dev, loss_cpu, 1e-5 * std::abs(loss_cpu)) << "step " << step;
      m.cpu.backward(0.5f);
      m.dev.backward(0.5f);
      EXPECT_LT(m.worst(/*grads=*/true), 1e-4) << "gradients, step " << step;
      const double n_cpu = clip_gradients(m.cpu.parameters(), 0.05);
      const double n_dev = clip_gradients(m.dev.parameters(), 0.05);
      EXPECT_NEAR(n_dev, n_cpu, 1e-4 * n_cpu);
      opt_cpu.step(1e-2f);
      opt_dev.step(1e-2f);
      EXPECT_LT(m.worst(/*grads=*/false), 1e-4) << "weights after step " << step;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dropout, GptOnDevice, ::testing::Values(0.0f, 0.2f));

TEST_F(GptOnDeviceDecoding, GreedyWithTheKvCacheMatchesTheCpu) {
  for (Device device : devices_) {
    GPTConfig c = odd_config(0.0f);
    Pair m(c, device);
    // Logits of a prompt and of single decoding steps, through the cache.
    DecodeContext decoder_cpu(m.cpu), decoder_dev(m.dev);
    KVCache cache_cpu(c), cache_dev(c, device);
    const std::vector<int32_t> prompt = {3, 14, 15, 9, 26};
    std::vector<float> a = decoder_cpu.forward(prompt.data(), 5, cache_cpu).to_vector();
    std::vector<float> d = decoder_dev.forward(prompt.data(), 5, cache_dev).to_vector();
    EXPECT_LT(rel_error(d, a), 1e-5);
    for (int32_t id : {5, 35, 8}) {
      a = decoder_cpu.forward(&id, 1, cache_cpu).to_vector();
      d = decoder_dev.forward(&id, 1, cache_dev).to_vector();
      EXPECT_LT(rel_error(d, a), 1e-5);
    }
    // Greedy decoding past the end of the context (the cache is rebuilt), with and
    // without the cache.
    for (bool use_cache : {true, false}) {
      GenerateOptions opts;
      opts.max_new_tokens = 30;
      opts.sampling.greedy = true;
      opts.use_cache = use_cache;
      Rng r1(0), r2(0);
      EXPECT_EQ(generate(m.dev, prompt, opts, r2), generate(m.cpu, prompt, opts, r1))
          << (use_cache ? "with" : "without") << " the cache";
    }
  }
}

// A checkpoint written from the device is the file the CPU reads: the same weights and
// AdamW moments, so a run started on one device resumes on the other.
TEST_F(GptOnDeviceCheckpoint, WrittenOnTheDeviceReadOnTheCpu) {
  for (Device device : devices_) {
    GPTConfig c = odd_config(0.0f);
    Pair m(c, device);
    const Batch b(c.vocab_size);
    AdamW opt(m.dev.parameters(), AdamWConfig{});
    m.dev.zero_grad();
    m.dev.forward_loss(b.ids.data(), b.targets.data(), b.B, b.T);
    m.dev.backward();
    opt.step(1e-2f);
    const std::string path = ::testing::TempDir() + "device_checkpoint.safetensors";
    CheckpointState state;
    state.step = 1;
    save_checkpoint(path, m.dev, &opt, state);

    GPT back(c);
    AdamW back_opt(back.parameters(), AdamWConfig{});
    load_checkpoint(path, back, &back_opt);
    auto x = back.parameters(), y = m.dev.parameters();
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_EQ(x[i].param->value.to_vector(), y[i].param->value.to_vector()) << x[i].name;
    for (size_t i = 0; i < back_opt.first_moments().size(); ++i)
      EXPECT_EQ(back_opt.second_moments()[i].to_vector(), opt.second_moments()[i].to_vector());
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace tinylm
