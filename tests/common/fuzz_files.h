// For the fuzz targets of readers that take a path (data files, PEFT folders): one temp
// folder per process, removed at exit, and a plain write of the input bytes into it.
// Writing is not atomic and not flushed to disk (write_file_atomic's fsync would cost
// more than the reading under test); a fuzz input is rewritten in place each time. The
// folder is in memory (/dev/shm) where there is one: truncating a file on a disk costs
// about 0.1 ms, more than most inputs take to read.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace tinylm::testing {

class FuzzFolder {
 public:
  explicit FuzzFolder(const std::string& target)
      : dir_(parent() / (target + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~FuzzFolder() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  FuzzFolder(const FuzzFolder&) = delete;
  FuzzFolder& operator=(const FuzzFolder&) = delete;

  std::string path() const { return dir_.string(); }
  // Writes bytes to FOLDER/name (replacing it) and returns the file's path.
  std::string write(const std::string& name, std::string_view bytes) const {
    const std::string file = (dir_ / name).string();
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) std::abort();  // the harness's own failure, not the reader's
    return file;
  }

 private:
  static std::filesystem::path parent() {
    std::error_code ec;
    if (std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0)
      return "/dev/shm";
    return std::filesystem::temp_directory_path();
  }

  std::filesystem::path dir_;
};

}  // namespace tinylm::testing
