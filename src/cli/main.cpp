// tinylm: the command-line program. Each verb lives in its own file (verb_*.cpp) and is
// listed in verbs.h; this file only dispatches and turns errors into exit codes:
// 0 ok, 1 runtime failure, 2 bad usage or bad input.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/verbs.h"
#include "util/error.h"

namespace {

void print_usage() {
  std::printf("tinylm: build, train, inspect and sample GPT-style language models\n\n");
  std::printf("usage: tinylm VERB [options]   (tinylm VERB --help for a verb's options)\n\n");
  std::printf("verbs:\n");
  for (const auto& v : tinylm::cli::verbs()) std::printf("  %-12s %s\n", v.name, v.summary);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string verb = argv[1];
  for (const auto& v : tinylm::cli::verbs()) {
    if (verb != v.name) continue;
    try {
      return v.run(argc - 1, argv + 1);
    } catch (const tinylm::InputError& e) {
      std::fprintf(stderr, "tinylm %s: error: %s\n", v.name, e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tinylm %s: failed: %s\n", v.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "tinylm: unknown verb '%s' (tinylm --help lists them)\n", verb.c_str());
  return 2;
}
