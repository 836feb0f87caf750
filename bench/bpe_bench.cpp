// GPT-2 BPE encoding speed: tinylm on data/tinyshakespeare.txt and data/bangla.txt,
// one thread and N threads. bench/bpe.sh runs it beside tiktoken (bench/bpe_tiktoken.mjs).
//   bpe_bench [--threads N] [--repeat R]
// Prints "RESULT <text> <mode> <MB/s> <tokens>" lines. "cold" is the first encode by a
// fresh tokenizer (empty piece cache); "1-thread" and "N-thread" the median of R runs
// after it (the cache warm, as it is after the first megabyte of any long text).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tokenizer/bpe_tokenizer.h"
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

void bench(const std::string& name, const std::string& text, int threads, int repeat) {
  const double mb = static_cast<double>(text.size()) / 1e6;
  const tinylm::BpeTokenizer tok;  // a fresh tokenizer: its per-thread caches start empty
  size_t n_tokens = 0;
  const double cold = seconds([&] { n_tokens = tok.encode_ordinary(text).size(); });
  std::printf("RESULT %s cold %.2f %zu\n", name.c_str(), mb / cold, n_tokens);
  std::vector<double> one, many;
  for (int r = 0; r < repeat; ++r) {
    one.push_back(seconds([&] { n_tokens = tok.encode_ordinary(text).size(); }));
    many.push_back(seconds([&] {
      n_tokens = tok.encode_parallel(text, tinylm::AllowedSpecials::none(), threads).size();
    }));
  }
  std::printf("RESULT %s 1-thread %.2f %zu\n", name.c_str(), mb / median(one), n_tokens);
  std::printf("RESULT %s %d-thread %.2f %zu\n", name.c_str(), threads, mb / median(many), n_tokens);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int repeat = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  const std::string dir = std::string(tinylm::source_dir()) + "/data/";
  bench("tinyshakespeare", tinylm::read_file(dir + "tinyshakespeare.txt"), threads, repeat);
  bench("bangla", tinylm::read_file(dir + "bangla.txt"), threads, repeat);
  return 0;
}
