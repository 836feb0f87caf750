// A deterministic stand-in for libFuzzer, linked with a fuzz target when the compiler has
// no libFuzzer (g++): it feeds LLVMFuzzerTestOneInput the seed inputs and then a fixed
// number of mutations of them drawn from a fixed seed, so a CI run is reproducible.
//
//   fuzz_X [--iterations N] [--seed S] [--max-len L] SEED_FILE_OR_FOLDER...
//
// Mutations (1 to 4 per input): flip a bit, set a byte to a random or an "interesting"
// value (0, 0xFF, '"', '{', '[', digits...), insert or delete a byte range, duplicate a
// range, splice in part of another seed. A failure is the target's own: a crash or a
// sanitizer report ends the process, after a line naming the input's number; the same
// --seed and --iterations reproduce it exactly.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// AddressSanitizer's hook, present only in sanitizer builds.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

uint64_t g_input = 0;  // the number of the input being run (seeds first)

void report_input() {
  char line[96];
  const int n = std::snprintf(line, sizeof line, "mutation fuzzer: failed on input #%llu\n",
                              static_cast<unsigned long long>(g_input));
  if (n > 0) (void)!::write(2, line, static_cast<size_t>(n));
}

void on_signal(int sig) {
  report_input();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

struct SplitMix {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }
};

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void mutate(std::string& s, const std::vector<std::string>& seeds, SplitMix& rng, size_t max_len) {
  static const char kInteresting[] = {0,   '\xFF', '"', '{', '}',  '[', ']',    ':',    ',', '-',
                                      '0', '9',    'e', '.', '\\', 'n', '\x80', '\xC3', ' '};
  const size_t n_mutations = 1 + rng.below(4);
  for (size_t m = 0; m < n_mutations; ++m) {
    const size_t op = rng.below(6);
    if (s.empty() && op != 3 && op != 5) {
      s.push_back(static_cast<char>(rng.next()));
      continue;
    }
    const size_t at = rng.below(s.size() + 1);
    switch (op) {
      case 0:
        if (at < s.size()) s[at] = static_cast<char>(s[at] ^ (1 << rng.below(8)));
        break;
      case 1:
        if (at < s.size()) s[at] = kInteresting[rng.below(sizeof kInteresting)];
        break;
      case 2:
        if (at < s.size()) s[at] = static_cast<char>(rng.next());
        break;
      case 3:
        s.insert(at, 1 + rng.below(4), kInteresting[rng.below(sizeof kInteresting)]);
        break;
      case 4:
        if (at < s.size()) s.erase(at, 1 + rng.below(std::min<size_t>(16, s.size() - at)));
        break;
      default: {
        const std::string& other = seeds[rng.below(seeds.size())];
        if (other.empty()) break;
        const size_t from = rng.below(other.size()),
                     len = 1 + rng.below(std::min<size_t>(64, other.size() - from));
        s.insert(at, other, from, len);
      }
    }
  }
  if (s.size() > max_len) s.resize(max_len);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t iterations = 10000, seed = 1;
  size_t max_len = 4096;
  std::vector<std::string> seeds{""};
  const std::string target = std::filesystem::path(argv[0]).filename().string();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--max-len" && i + 1 < argc) {
      max_len = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& e : std::filesystem::directory_iterator(arg))
        if (e.is_regular_file()) seeds.push_back(read_all(e.path()));
    } else if (std::filesystem::is_regular_file(arg)) {
      seeds.push_back(read_all(arg));
    } else {
      std::fprintf(stderr, "%s: no such seed file or folder: %s\n", target.c_str(), arg.c_str());
      return 2;
    }
  }
  std::sort(seeds.begin(), seeds.end());  // directory order is not fixed
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(report_input);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_signal);
  const auto run = [&](const std::string& input) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    ++g_input;
  };
  for (const std::string& s : seeds) run(s);
  SplitMix rng{seed};
  for (uint64_t i = 0; i < iterations; ++i) {
    std::string input = seeds[rng.below(seeds.size())];
    mutate(input, seeds, rng, max_len);
    run(input);
  }
  std::printf("%s: %zu seeds and %llu mutated inputs, no failure\n", target.c_str(), seeds.size(),
              static_cast<unsigned long long>(iterations));
  return 0;
}
