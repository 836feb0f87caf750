// Running the tinylm program from tests: exit code and combined output.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "util/files.h"

namespace tinylm::testing {

struct RunResult {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs `tinylm ARGS` through the shell (from the source directory), capturing output.
inline RunResult run_tinylm(const std::string& args) {
  const std::string out = std::filesystem::temp_directory_path() /
                          ("tinylm-cli-" + std::to_string(::getpid()) + ".out");
  const std::string cmd = std::string("cd '") + TINYLM_SOURCE_DIR + "' && '" + TINYLM_BIN + "' " +
                          args + " > '" + out + "' 2>&1";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = file_exists(out) ? read_file(out) : "";
  std::filesystem::remove(out);
  return r;
}

// A fresh empty folder under /tmp for one test.
inline std::string fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tinylm-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace tinylm::testing
