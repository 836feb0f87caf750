// Generation speed, batch 1: the prompt's prefill, then greedy decoding with the KV cache
// (one position per token), for each kind of decode weights (decode/decode_weights.h): f32,
// f16 and bf16 copies, Q8_0 copies. bench/generate_speed_torch.py does the f32 part in PyTorch
// and bench/gguf.sh runs the same files in llama.cpp; bench/run.sh puts them side by side.
// Each kind is timed warm: one round first, not counted, then the median of --rounds.
// Decoding reads every weight once per token, so it is bound by memory bandwidth: the
// triad bandwidth measured here (bench/ceilings.h) divided by the bytes of weights a step
// reads (DecodeContext::step_weight_bytes) is printed as the bound. Also the same tokens without
// the cache (the whole window recomputed each step), and how many greedy ids of each kind
// agree with f32's.
//   generate_speed [--preset gpt2-124m | --model SRC] [--decode f32,f16,bf16,q8_0]
//                  [--prompt 64] [--new 128] [--rounds 3] [--uncached-new 16] [--threads N]
// --model takes what `tinylm generate` takes (a GGUF file, a run, a Hugging Face folder).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "ceilings.h"
#include "generate/generate.h"
#include "model/gpt.h"
#include "open/open_model.h"
#include "tensor/threads.h"

using namespace tinylm;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Round {
  double prefill_s = 0, decode_s = 0;
  std::vector<int32_t> ids;  // the greedy continuation
};

// The prompt in one cached forward pass, then n_new greedy tokens one at a time.
Round time_round(DecodeContext& decoder, const std::vector<int32_t>& prompt, int64_t n_new) {
  Round r;
  KVCache cache = decoder.new_cache();
  const int64_t V = decoder.model().config().vocab_size;
  auto t0 = std::chrono::steady_clock::now();
  Tensor logits = decoder.forward(prompt.data(), static_cast<int64_t>(prompt.size()), cache);
  r.prefill_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n_new; ++i) {
    const int32_t id =
        static_cast<int32_t>(std::max_element(logits.data(), logits.data() + V) - logits.data());
    r.ids.push_back(id);
    if (i + 1 < n_new) logits = decoder.forward(&id, 1, cache);
  }
  r.decode_s = seconds_since(t0);
  return r;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "gpt2-124m", source, decode = "f32,f16,bf16,q8_0";
  int64_t prompt_len = 64, n_new = 128, uncached_new = 16, threads = 0, rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--preset")
      preset = argv[i + 1];
    else if (flag == "--model")
      source = argv[i + 1];
    else if (flag == "--decode")
      decode = argv[i + 1];
    else if (flag == "--prompt")
      prompt_len = std::atoll(argv[i + 1]);
    else if (flag == "--new")
      n_new = std::atoll(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::max<int64_t>(1, std::atoll(argv[i + 1]));
    else if (flag == "--uncached-new")
      uncached_new = std::atoll(argv[i + 1]);
    else if (flag == "--threads")
      threads = std::atoll(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  set_num_threads(static_cast<int>(threads));
  OpenedModel opened = open_model(source.empty() ? preset : source);
  GPT& model = opened.language_model("generate_speed");
  const std::string name =
      source.empty() ? preset : std::filesystem::path(source).filename().string();
  Rng rng(1);
  std::vector<int32_t> prompt(prompt_len);
  for (auto& id : prompt) id = static_cast<int32_t>(rng.below(model.config().vocab_size));
  const double triad = bench::triad_bandwidth_gbs();
  std::printf("tinylm   %s: %.1fM params, %d threads, prompt %lld tokens, %lld new tokens\n",
              name.c_str(), model.num_parameters() / 1e6, num_threads(),
              static_cast<long long>(prompt_len), static_cast<long long>(n_new));

  std::vector<int32_t> f32_ids;
  for (const std::string& kind : split(decode)) {
    const decode::DecodeWeights type = decode::parse_decode_weights(kind);
    DecodeContext decoder(model, type);
    time_round(decoder, prompt, n_new);  // warm-up
    std::vector<double> prefill, step;
    std::vector<int32_t> ids;
    for (int64_t r = 0; r < rounds; ++r) {
      Round round = time_round(decoder, prompt, n_new);
      prefill.push_back(round.prefill_s);
      step.push_back(round.decode_s / static_cast<double>(n_new));
      ids = std::move(round.ids);
    }
    if (type == decode::DecodeWeights::kF32) f32_ids = ids;
    const double bytes = static_cast<double>(decoder.step_weight_bytes());
    const double tokens_s = 1.0 / median(step), bound = triad * 1e9 / bytes;
    std::printf(
        "tinylm   %s decode %s: prefill %lld tokens %.1f tokens/s; decode %.1f tokens/s (%.2f "
        "ms/token); weights read per token %.0f MB; triad %.1f GB/s\n",
        name.c_str(), kind.c_str(), static_cast<long long>(prompt_len),
        prompt_len / median(prefill), tokens_s, median(step) * 1000, bytes / 1e6, triad);
    std::printf("         %.0f%% of the bandwidth bound %.1f tokens/s", 100.0 * tokens_s / bound,
                bound);
    if (!f32_ids.empty() && type != decode::DecodeWeights::kF32) {
      size_t agree = 0;
      while (agree < ids.size() && ids[agree] == f32_ids[agree]) ++agree;
      std::printf("; greedy ids equal to f32's for the first %zu of %zu", agree, ids.size());
    }
    std::printf("\n");
  }

  if (uncached_new <= 0 || f32_ids.empty()) return 0;
  GenerateOptions opt;
  opt.max_new_tokens = uncached_new;
  opt.sampling.greedy = true;
  opt.use_cache = false;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<int32_t> uncached = generate(model, prompt, opt, rng);
  const double uncached_s = seconds_since(t0);
  const bool same = std::equal(uncached.begin(), uncached.end(), f32_ids.begin());
  std::printf("tinylm   %s without the KV cache: %.1f tokens/s (%lld tokens)%s\n", name.c_str(),
              uncached_new / uncached_s, static_cast<long long>(uncached_new),
              same ? "" : "  [cached and uncached ids differ!]");
  return same ? 0 : 1;
}
