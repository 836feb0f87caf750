// Writing into the hub cache (see cache_store.h).
#include "download/cache_store.h"

#include <filesystem>
#include <random>

#include "util/error.h"
#include "util/files.h"

namespace tinylm::download {

namespace fs = std::filesystem;

namespace {

std::string temp_name(const std::string& path) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return path + ".tmp-" + std::to_string(rng() % 100000000);
}

}  // namespace

std::string blob_path(const std::string& repo_folder, const std::string& etag) {
  return repo_folder + "/blobs/" + etag;
}

void link_into_snapshot(const std::string& repo_folder, const std::string& commit,
                        const std::string& file, const std::string& etag) {
  const std::string link = repo_folder + "/snapshots/" + commit + "/" + file;
  create_folder(fs::path(link).parent_path().string(), "the cache");
  std::string target = "../../";
  for (char c : file)
    if (c == '/') target += "../";
  target += "blobs/" + etag;
  const std::string temp = temp_name(link);
  std::error_code ec;
  fs::create_symlink(target, temp, ec);
  if (!ec) fs::rename(temp, link, ec);
  if (ec) {
    fs::remove(temp);
    throw InputError("cannot write " + link + ": " + ec.message());
  }
}

void write_ref(const std::string& repo_folder, const std::string& revision,
               const std::string& commit) {
  if (revision == commit) return;
  const std::string ref = repo_folder + "/refs/" + revision;
  create_folder(fs::path(ref).parent_path().string(), "the cache");
  write_file_atomic(ref, commit);
}

void copy_file_atomic(const std::string& from, const std::string& to) {
  const std::string temp = temp_name(to);
  std::error_code ec;
  fs::copy_file(from, temp, fs::copy_options::none, ec);
  if (!ec) fs::rename(temp, to, ec);
  if (ec) {
    fs::remove(temp);
    throw InputError("cannot write " + to + ": " + ec.message());
  }
}

}  // namespace tinylm::download
