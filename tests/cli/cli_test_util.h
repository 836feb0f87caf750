// Running the tinylm program from tests: exit code and combined output.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/safetensors.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm::testing {

// The tinylm program built beside these tests (tests/cli/tinylm_bin.cpp).
const char* tinylm_bin();

struct RunResult {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs `tinylm ARGS` through the shell (from the source directory), capturing output.
inline RunResult run_tinylm(const std::string& args) {
  const std::string out = std::filesystem::temp_directory_path() /
                          ("tinylm-cli-" + std::to_string(::getpid()) + ".out");
  const std::string cmd = std::string("cd '") + source_dir() + "' && '" + tinylm_bin() + "' " +
                          args + " > '" + out + "' 2>&1";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = file_exists(out) ? read_file(out) : "";
  std::filesystem::remove(out);
  return r;
}

// Runs `tinylm ARGS` and expects exit `code` and `message` somewhere in the output.
inline void expect_exit(int code, const std::string& args, const std::string& message) {
  const RunResult r = run_tinylm(args);
  EXPECT_EQ(r.code, code) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

// A fresh empty folder under /tmp for one test.
inline std::string fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tinylm-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// A training checkpoint's weights and AdamW moments, names and bytes (two runs trained
// alike compare equal; the metadata, which names the world size, is left out).
inline std::string checkpoint_state_bytes(const std::string& checkpoint) {
  std::string all;
  const SafeTensors f = load_safetensors(checkpoint);
  for (const auto& name : f.names)
    if (name.rfind("model.", 0) == 0 || name.rfind("optim.", 0) == 0)
      all += name + f.get(name).bytes;
  return all;
}

}  // namespace tinylm::testing
