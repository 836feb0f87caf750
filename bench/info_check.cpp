// Checks `tinylm info`'s estimates against a real training step (forward_loss, backward,
// gradient clipping, AdamW) of nanoGPT's Tiny Shakespeare model by default
// (6 layers, 6 heads, d_model 384, context 256, vocab 65, no biases: 10.65M parameters).
// Prints predicted vs measured peak memory (peak RSS growth, ru_maxrss, and the bytes
// allocated through operator new) and predicted FLOPs per step vs the achieved rate.
//   info_check [--batch 64] [--layers 6] [--heads 6] [--d-model 384] [--block 256]
//              [--vocab 65] [--steps 3]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "common/heap_counter.h"
#include "model/gpt.h"
#include "optim/adamw.h"
#include "report/flops.h"
#include "report/memory.h"
#include "report/peak_rss.h"
#include "tensor/threads.h"

using namespace tinylm;
using namespace tinylm::report;
using namespace tinylm::testing;

int main(int argc, char** argv) {
  GPTConfig c;
  c.n_layer = 6, c.n_head = 6, c.d_model = 384, c.block_size = 256, c.vocab_size = 65;
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = false;
  int64_t batch = 64, steps = 3;
  const std::map<std::string, int64_t*> flags = {
      {"--batch", &batch},       {"--layers", &c.n_layer},   {"--heads", &c.n_head},
      {"--d-model", &c.d_model}, {"--block", &c.block_size}, {"--vocab", &c.vocab_size},
      {"--steps", &steps}};
  for (int i = 1; i < argc; i += 2) {
    const auto it = flags.find(argv[i]);
    if (it == flags.end() || i + 1 >= argc) {
      std::fprintf(stderr, "unknown flag or missing value: %s\n", argv[i]);
      return 2;
    }
    *it->second = std::atoll(argv[i + 1]);
  }
  const int64_t T = c.block_size;
  const MemoryEstimate mem = estimate_memory(c, batch, T);
  const FlopEstimate flops = estimate_flops(c, batch, T);

  Rng rng(1);
  std::vector<int32_t> data(batch * T + 1);
  for (auto& id : data) id = static_cast<int32_t>(rng.below(c.vocab_size));

  prepare_rss_measurement();
  const bool reset = reset_peak_rss();
  const int64_t rss_before = current_rss_bytes(), maxrss_before = ru_maxrss_bytes();
  reset_heap_peak();
  const int64_t heap_before = heap_live_bytes();

  GPT model(c);
  model.init(rng);
  AdamW opt(model.parameters(), AdamWConfig{1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f});
  nn::Context training;  // a training step, as the trainer runs it (tiled attention)
  training.training = true;
  training.rng = &rng;
  double step_ms = 0;
  for (int64_t s = 0; s < steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    model.zero_grad();
    const double loss = model.forward_loss(data.data(), data.data() + 1, batch, T, training);
    model.backward();
    clip_gradients(model.parameters(), 1.0);
    opt.step(1e-3f);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("step %lld: loss %.4f, %.0f ms\n", static_cast<long long>(s), loss, ms);
    if (s > 0 || steps == 1) step_ms += ms;  // the first step also allocates
  }
  step_ms /= steps > 1 ? static_cast<double>(steps - 1) : 1.0;

  const double MiB = 1024.0 * 1024.0;
  const double predicted = static_cast<double>(mem.training_peak());
  const double rss_growth = static_cast<double>(peak_rss_bytes() - rss_before);
  const double maxrss_growth = static_cast<double>(ru_maxrss_bytes() - maxrss_before);
  const double heap = static_cast<double>(heap_peak_bytes() - heap_before);
  std::printf("\nmodel: %lld parameters, batch %lld x seq %lld, %d threads\n",
              static_cast<long long>(model.num_parameters()), static_cast<long long>(batch),
              static_cast<long long>(T), num_threads());
  std::printf("memory, training step with AdamW:\n");
  const auto line = [&](const char* what, double bytes) {
    std::printf("  %-32s %9.1f MiB   predicted/measured %.3f\n", what, bytes / MiB,
                predicted / bytes);
  };
  std::printf("  %-32s %9.1f MiB\n", "predicted", predicted / MiB);
  line("allocated (operator new)", heap);
  line(reset ? "peak RSS growth (VmHWM, reset)" : "peak RSS growth (VmHWM)", rss_growth);
  line("ru_maxrss growth", maxrss_growth);
  const double seconds = step_ms / 1000.0;
  std::printf("FLOPs per training step:\n");
  std::printf("  %-32s %9.1f GFLOP\n", "predicted (3 x forward)", flops.train_per_step / 1e9);
  std::printf("  %-32s %9.1f GFLOP\n", "6N rule", flops.six_n / 1e9);
  std::printf("  %-32s %9.1f ms  -> %.1f GFLOP/s achieved\n", "step time (after the first)",
              step_ms, flops.train_per_step / 1e9 / seconds);
  return 0;
}
