// What each kind of decode weights (decode/decode_weights.h) costs in quality, on a trained
// model: the loss on a held-out text computed by decode steps (one token at a time with
// the KV cache, so every product reads the copies), and how many greedy ids agree with
// float32's from prompts taken out of that text.
//   decode_quality --model RUN --text FILE [--tokens 2000] [--prompts 8] [--new 64]
//                  [--threads N]
// The held-out text is the end of FILE (a run's validation split is the last tenth of
// its data); --tokens of it are scored, in windows of the model's context.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "generate/generate.h"
#include "open/open_model.h"
#include "tensor/threads.h"

using namespace tinylm;

namespace {

// Mean cross-entropy of ids[1..] given what precedes each, fed one id per decode step;
// a fresh cache every `window` ids (the model's context).
double decode_loss(DecodeContext& decoder, const std::vector<int32_t>& ids, int64_t window) {
  const int64_t V = decoder.model().config().vocab_size;
  double total = 0;
  int64_t count = 0;
  for (size_t start = 0; start + 1 < ids.size(); start += window) {
    KVCache cache = decoder.new_cache();
    const size_t end = std::min(ids.size(), start + window);
    for (size_t t = start; t + 1 < end; ++t) {
      const Tensor logits = decoder.forward(&ids[t], 1, cache);
      const float* z = logits.data();
      const float top = *std::max_element(z, z + V);
      double sum = 0;
      for (int64_t v = 0; v < V; ++v) sum += std::exp(static_cast<double>(z[v]) - top);
      total += std::log(sum) + top - z[ids[t + 1]];
      ++count;
    }
  }
  return total / static_cast<double>(count);
}

}  // namespace

int main(int argc, char** argv) {
  std::string source, text_path;
  int64_t n_tokens = 2000, n_prompts = 8, n_new = 64, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--model")
      source = argv[i + 1];
    else if (flag == "--text")
      text_path = argv[i + 1];
    else if (flag == "--tokens")
      n_tokens = std::atoll(argv[i + 1]);
    else if (flag == "--prompts")
      n_prompts = std::atoll(argv[i + 1]);
    else if (flag == "--new")
      n_new = std::atoll(argv[i + 1]);
    else if (flag == "--threads")
      threads = std::atoll(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (source.empty() || text_path.empty()) {
    std::fprintf(stderr, "usage: decode_quality --model RUN --text FILE\n");
    return 2;
  }
  set_num_threads(static_cast<int>(threads));
  OpenedModel opened = open_model(source);
  GPT& model = opened.language_model("decode_quality");
  std::ifstream in(text_path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const std::string held_out = text.substr(text.size() - text.size() / 10);
  std::vector<int32_t> ids = opened.tokenizer->encode(held_out);
  if (static_cast<int64_t>(ids.size()) > n_tokens) ids.resize(n_tokens);
  const int64_t window = model.config().block_size;
  const int64_t prompt_len = std::min<int64_t>(32, window / 2);
  n_new = std::min(n_new, window - prompt_len);

  std::vector<std::vector<int32_t>> f32_ids;
  for (const decode::DecodeWeights type :
       {decode::DecodeWeights::kF32, decode::DecodeWeights::kF16, decode::DecodeWeights::kBf16,
        decode::DecodeWeights::kQ8_0}) {
    DecodeContext decoder(model, type);
    const double loss = decode_loss(decoder, ids, window);
    int64_t equal = 0, total = 0;
    for (int64_t p = 0; p < n_prompts; ++p) {
      const size_t at = static_cast<size_t>(p) * (ids.size() - prompt_len) / n_prompts;
      const std::vector<int32_t> prompt(ids.begin() + at, ids.begin() + at + prompt_len);
      GenerateOptions opt;
      opt.max_new_tokens = n_new;
      opt.sampling.greedy = true;
      Rng rng(1);
      const std::vector<int32_t> out = generate(decoder, prompt, opt, rng);
      if (type == decode::DecodeWeights::kF32) f32_ids.push_back(out);
      const std::vector<int32_t>& want = f32_ids[p];
      int64_t agree = 0;
      while (agree < static_cast<int64_t>(out.size()) && out[agree] == want[agree]) ++agree;
      equal += agree;
      total += static_cast<int64_t>(out.size());
    }
    std::printf(
        "decode %-4s  held-out loss %.4f over %zu tokens; greedy ids equal to f32's before the "
        "first difference: %lld of %lld (%lld prompts of %lld tokens)\n",
        decode::decode_weights_name(type), loss, ids.size() - 1, static_cast<long long>(equal),
        static_cast<long long>(total), static_cast<long long>(n_prompts),
        static_cast<long long>(prompt_len));
  }
  return 0;
}
