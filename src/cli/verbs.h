// The verbs of the tinylm program. Each verb's run(argc, argv) receives argv starting at
// the verb name, parses its own flags (CLI11; --help documents every flag), and returns
// the exit code. Errors: throw InputError for bad usage/input (exit 2).
#pragma once
#include <vector>

namespace tinylm::cli {

struct Verb {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
};

// One line per verb, defined in verbs.cpp.
const std::vector<Verb>& verbs();

}  // namespace tinylm::cli
