// tinylm: the command-line program. Each verb lives in its own file (verb_*.cpp) and is
// listed in verbs.h; this file only dispatches and turns errors into exit codes:
// 0 ok, 1 runtime failure, 2 bad usage or bad input.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/verbs.h"
#include "dist/communicator.h"
#include "util/error.h"
#include "util/utf8.h"

namespace {

void print_usage() {
  std::printf("tinylm: build, train, inspect and sample GPT-style language models\n\n");
  std::printf("usage: tinylm VERB [options]   (tinylm VERB --help for a verb's options)\n\n");
  std::printf("verbs:\n");
  for (const auto& v : tinylm::cli::verbs()) std::printf("  %-12s %s\n", v.name, v.summary);
}

int run(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string verb = argv[1];
  // Arguments are text (paths and values end up in JSON, logs and messages): bytes that
  // are not UTF-8 are bad input, named here rather than failing later.
  for (int i = 1; i < argc; ++i) {
    const size_t bad = tinylm::utf8_first_invalid(argv[i]);
    if (bad != std::string::npos) {
      std::fprintf(stderr, "tinylm: error: argument %d is not valid UTF-8 (at byte %zu)\n", i, bad);
      return 2;
    }
  }
  for (const auto& v : tinylm::cli::verbs()) {
    if (verb != v.name) continue;
    try {
      const int code = v.run(argc - 1, argv + 1);
      // What a verb printed must have reached its destination (not a full disk).
      if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "tinylm %s: error: cannot write the output: %s\n", v.name,
                     std::strerror(errno));
        return 2;
      }
      return code;
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

}  // namespace

int main(int argc, char** argv) {
  const int code = run(argc, argv);
  tinylm::dist::finish(code);  // under mpirun: a failed rank ends the whole job
  return code;
}
