// Generation speed of a GPT-2 shape (random weights, batch 1): the prompt's prefill, then
// greedy decoding with the KV cache (one position per token), and the same tokens without
// the cache (the whole window recomputed each step). bench/generate_speed_torch.py does
// the same in PyTorch; bench/run.sh runs both side by side. Decoding reads every weight
// once per token, so it is bound by memory bandwidth: the triad bandwidth measured here
// (bench/ceilings.h) divided by the fp32 weight bytes is printed as the bound. Then the
// cached decoding again with bf16 weights (GPT::set_bf16_decode: half the bytes), its
// bound, and how many of its greedy ids agree with the fp32 run.
//   generate_speed --preset gpt2-124m --prompt 64 --new 128 [--threads N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ceilings.h"
#include "generate/generate.h"
#include "model/gpt.h"
#include "tensor/threads.h"

using namespace tinylm;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "gpt2-124m";
  int64_t prompt_len = 64, n_new = 128, uncached_new = 16, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--preset") preset = argv[i + 1];
    else if (flag == "--prompt") prompt_len = std::atoll(argv[i + 1]);
    else if (flag == "--new") n_new = std::atoll(argv[i + 1]);
    else if (flag == "--uncached-new") uncached_new = std::atoll(argv[i + 1]);
    else if (flag == "--threads") threads = std::atoll(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  set_num_threads(static_cast<int>(threads));
  const GPTConfig c = GPTConfig::preset(preset);
  GPT model(c);
  Rng rng(1);
  model.init(rng);
  std::vector<int32_t> prompt(prompt_len);
  for (auto& id : prompt) id = static_cast<int32_t>(rng.below(c.vocab_size));

  // Prefill: the prompt in one cached forward pass.
  KVCache cache(c);
  auto t0 = std::chrono::steady_clock::now();
  model.forward_cached(prompt.data(), prompt_len, cache);
  const double prefill = seconds_since(t0);

  // Decode with the cache (prefill included in generate(); subtract it).
  GenerateOptions opt;
  opt.max_new_tokens = n_new;
  opt.sampling.greedy = true;
  t0 = std::chrono::steady_clock::now();
  const std::vector<int32_t> cached = generate(model, prompt, opt, rng);
  const double cached_s = seconds_since(t0) - prefill;

  opt.max_new_tokens = uncached_new;
  opt.use_cache = false;
  t0 = std::chrono::steady_clock::now();
  const std::vector<int32_t> uncached = generate(model, prompt, opt, rng);
  const double uncached_s = seconds_since(t0);
  const double triad = bench::triad_bandwidth_gbs();
  const double weight_bytes = 4.0 * static_cast<double>(model.num_parameters());
  const double bound = triad * 1e9 / weight_bytes;
  bool same = true;
  for (size_t i = 0; i < uncached.size(); ++i) same = same && uncached[i] == cached[i];

  std::printf(
      "tinylm   %s %.1fM params, %d threads: prefill %lld tokens %.0f ms; KV cache %.1f tokens/s "
      "(%.1f ms/token, %lld tokens); no cache %.1f tokens/s (%lld tokens)%s\n",
      preset.c_str(), model.num_parameters() / 1e6, num_threads(),
      static_cast<long long>(prompt_len), prefill * 1000, n_new / cached_s,
      cached_s * 1000 / n_new, static_cast<long long>(n_new), uncached_new / uncached_s,
      static_cast<long long>(uncached_new), same ? "" : "  [cached and uncached ids differ!]");
  std::printf(
      "machine  triad %.1f GB/s; fp32 weights %.0f MB -> bandwidth bound %.1f tokens/s; KV cache "
      "decoding reaches %.0f%% of it\n",
      triad, weight_bytes / 1e6, bound, 100.0 * (n_new / cached_s) / bound);

  model.set_bf16_decode(true);
  opt.max_new_tokens = n_new;
  opt.use_cache = true;
  t0 = std::chrono::steady_clock::now();
  const std::vector<int32_t> bf16 = generate(model, prompt, opt, rng);
  const double bf16_s = seconds_since(t0) - prefill;
  size_t agree = 0;
  while (agree < bf16.size() && bf16[agree] == cached[agree]) ++agree;
  const double bf16_bound = 2.0 * triad * 1e9 / weight_bytes;
  std::printf(
      "tinylm   bf16 decode weights: KV cache %.1f tokens/s (%.1f ms/token) = %.0f%% of the bf16 "
      "bound %.1f tokens/s; greedy ids equal to fp32 for the first %zu of %zu positions\n",
      n_new / bf16_s, bf16_s * 1000 / n_new, 100.0 * (n_new / bf16_s) / bf16_bound, bf16_bound,
      agree, bf16.size());
  return same ? 0 : 1;
}
