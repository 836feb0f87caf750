// A Hugging Face cache written the way huggingface_hub writes it (blobs named by etag,
// snapshot entries as relative symbolic links to them, refs/<revision> holding the commit),
// for tests that find models in it. Independent of the code under test.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace tinylm::testing {

// A fresh folder under the system's temp folder (removed by the caller).
inline std::string fresh_cache_dir(const std::string& tag) {
  std::random_device rd;
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("tinylm-hub-" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

struct HubCacheRepo {
  std::string cache, repo_id, commit;

  std::string folder() const {
    std::string flat = repo_id;
    if (const size_t slash = flat.find('/'); slash != std::string::npos)
      flat.replace(slash, 1, "--");
    return cache + "/models--" + flat;
  }
  std::string snapshot() const { return folder() + "/snapshots/" + commit; }

  // blobs/<etag> holds bytes; snapshots/<commit>/<file> links to ../../blobs/<etag>.
  void put(const std::string& file, const std::string& bytes, const std::string& etag) const {
    namespace fs = std::filesystem;
    fs::create_directories(folder() + "/blobs");
    fs::create_directories(fs::path(snapshot() + "/" + file).parent_path());
    std::ofstream(folder() + "/blobs/" + etag, std::ios::binary) << bytes;
    fs::create_symlink("../../blobs/" + etag, snapshot() + "/" + file);
  }
  // Copies a file from disk into the cache under `file`.
  void put_file(const std::string& file, const std::string& source, const std::string& etag) const {
    std::ifstream in(source, std::ios::binary);
    put(file, std::string(std::istreambuf_iterator<char>(in), {}), etag);
  }
  void set_ref(const std::string& revision) const {
    std::filesystem::create_directories(
        std::filesystem::path(folder() + "/refs/" + revision).parent_path());
    std::ofstream(folder() + "/refs/" + revision) << commit;  // no newline, as the hub writes
  }
};

}  // namespace tinylm::testing
