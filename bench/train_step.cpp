// Times one training step (forward + backward + AdamW) of a GPT for a given shape and
// prints ms/step and tokens/s. bench/train_step_torch.py does the same step in PyTorch;
// bench/run.sh runs both side by side. Also measures the machine's ceilings (sgemm peak
// through the GEMM tinylm uses, triad bandwidth; bench/ceilings.h) and prints the step's
// model FLOP/s as a fraction of that peak (FLOPs from report::estimate_flops: dense
// attention, backward = 2 x forward, so the same count PyTorch's step is measured against).
// --precision bf16: the linear layers' products with bf16-rounded operands (ops/matmul_bf16.h,
// as `tinylm train --precision bf16`); the sgemm peak stays the float32 one.
//   train_step --layers 4 --heads 4 --d-model 128 --block 64 --batch 12 --vocab 65
//              [--precision fp32|bf16]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ceilings.h"
#include "model/gpt.h"
#include "ops/matmul_bf16.h"
#include "optim/adamw.h"
#include "report/flops.h"
#include "tensor/threads.h"

using namespace tinylm;

int main(int argc, char** argv) {
  GPTConfig c;
  c.n_layer = 4, c.n_head = 4, c.d_model = 128, c.block_size = 64, c.vocab_size = 65;
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = false;  // nanoGPT bias=False
  int64_t batch = 12, steps = 10, warmup = 2, threads = 0;
  ops::MatmulPrecision precision = ops::MatmulPrecision::kFp32;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int64_t v = std::atoll(argv[i + 1]);
    if (flag == "--precision")
      precision = ops::parse_precision(argv[i + 1]);
    else if (flag == "--layers")
      c.n_layer = v;
    else if (flag == "--heads")
      c.n_head = v;
    else if (flag == "--d-model")
      c.d_model = v;
    else if (flag == "--block")
      c.block_size = v;
    else if (flag == "--batch")
      batch = v;
    else if (flag == "--vocab")
      c.vocab_size = v;
    else if (flag == "--steps")
      steps = v;
    else if (flag == "--warmup")
      warmup = v;
    else if (flag == "--threads")
      threads = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  set_num_threads(static_cast<int>(threads));
  ops::set_cpu_matmul_precision(precision);
  GPT model(c);
  Rng rng(1);
  model.init(rng);
  AdamW opt(model.parameters(), AdamWConfig{1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f});
  const int64_t T = c.block_size;
  std::vector<int32_t> data(batch * T + 1);
  for (auto& id : data) id = static_cast<int32_t>(rng.below(c.vocab_size));

  const double peak = bench::sgemm_peak_gflops(), triad = bench::triad_bandwidth_gbs();
  std::printf("machine  %d threads: sgemm peak %.0f GFLOP/s (%s, 2048^3), triad %.1f GB/s\n",
              num_threads(), peak, ops::matmul_backend(), triad);
  if (precision == ops::MatmulPrecision::kBf16)
    std::printf("bf16 products: %s\n", ops::matmul_bf16_kernel().c_str());

  double total_ms = 0, best_ms = 1e30, loss = 0;
  for (int64_t s = 0; s < warmup + steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    model.zero_grad();
    loss = model.forward_loss(data.data(), data.data() + 1, batch, T);
    model.backward();
    clip_gradients(model.parameters(), 1.0);
    opt.step(1e-3f);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (s >= warmup) total_ms += ms, best_ms = std::min(best_ms, ms);
  }
  const double ms = total_ms / steps;
  const double flops = static_cast<double>(report::estimate_flops(c, batch, T).train_per_step);
  const double gflops = flops / (ms / 1000.0) / 1e9;
  std::printf(
      "tinylm  %s  params %.2fM  threads %d  %.1f ms/step (best %.1f)  %.0f tokens/s  (loss %.3f)  "
      "%.1f GFLOP/s = %.0f%% of the measured sgemm peak\n",
      ops::precision_name(precision), model.num_parameters() / 1e6, num_threads(), ms, best_ms,
      batch * T / (ms / 1000.0), loss, gflops, 100.0 * gflops / peak);
  return 0;
}
