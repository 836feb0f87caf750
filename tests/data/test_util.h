// Helpers shared by the data-layer tests.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/input_error.h"
#include "util/error.h"
#include "util/source_dir.h"

namespace tinylm::testing {

inline std::string repo_path(const std::string& rel) {
  return std::string(tinylm::source_dir()) + "/" + rel;
}

// A fresh temp folder for one test, removed with everything in it at the end of scope.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;  // tests in one process run one at a time
    dir_ = std::filesystem::temp_directory_path() /
           ("tinylm_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};


}  // namespace tinylm::testing
