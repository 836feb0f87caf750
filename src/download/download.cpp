// `tinylm download` (see download.h).
#include "download/download.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "download/cache_store.h"
#include "download/progress.h"
#include "download/sha256.h"
#include "hub/hub_cache.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::download {

namespace fs = std::filesystem;

namespace {

struct Fd {
  int fd;
  ~Fd() { ::close(fd); }
};

uint64_t size_of(int fd) {
  struct stat st {};
  fstat(fd, &st);
  return static_cast<uint64_t>(st.st_size);
}

void write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

// The partial file is wrong: remove it (the next run starts again) and say so.
[[noreturn]] void reject(const std::string& partial, const std::string& name,
                         const std::string& why) {
  fs::remove(partial);
  throw DownloadError(name + ": " + why +
                      "; the partial file was removed, run the command "
                      "again to fetch it anew");
}

void verify(const std::string& partial, const std::string& name, const FileMeta& meta) {
  const uint64_t got = fs::file_size(partial);
  if (got != meta.size)
    reject(partial, name,
           "got " + std::to_string(got) + " bytes, the hub says " + std::to_string(meta.size));
  if (!meta.lfs) return;
  const std::string sha = sha256_of_file(partial);
  if (sha != meta.etag)
    reject(partial, name, "sha256 " + sha + " is not the hub's " + meta.etag + " (corrupt)");
}

// Fetches bytes [have, size) of the file into fd (from 0 when the server ignores the range).
uint64_t transfer(const HubClient& hub, const FileMeta& meta, const std::string& name,
                  const std::string& partial, int fd, const DownloadRequest& request) {
  const uint64_t from = size_of(fd);
  uint64_t have = from, fetched = 0;
  Progress progress(request.log, name, meta.size, from);
  const BodySink sink = [&](long status, std::string_view bytes) {
    if (status == 200 && have == from && from > 0) {  // the whole file again: start over
      if (ftruncate(fd, 0) != 0) return false;
      have = 0;
    }
    write_all(fd, bytes, partial);
    have += bytes.size(), fetched += bytes.size();
    progress.update(have);
    return true;
  };
  const ProgressTick tick = [&](uint64_t) { return !request.should_stop(); };
  HttpResponse r;
  try {
    r = get_to_sink(meta.url, from, hub.options(hub.download_timeout_s), sink, tick);
  } catch (const DownloadError& e) {
    throw DownloadError(std::string(e.what()) + " (" + name + ": " + std::to_string(have) + " of " +
                        std::to_string(meta.size) +
                        " bytes kept; run the same command again to resume)");
  }
  if (r.status == 416 && from == meta.size) return 0;  // it was complete
  if (r.status != 200 && r.status != 206)
    throw DownloadError("the server answered HTTP " + std::to_string(r.status) + " for " + name);
  progress.finish();
  return fetched;
}

std::string model_type_of(const std::string& config_path) {
  const nlohmann::json j = read_json_file(config_path);
  return j.is_object() && j.contains("model_type") && j["model_type"].is_string()
             ? j["model_type"].get<std::string>()
             : "";
}

}  // namespace

uint64_t fetch_blob(const HubClient& hub, const FileMeta& meta, const std::string& name,
                    const std::string& blob, const DownloadRequest& request) {
  if (file_exists(blob)) return 0;
  create_folder(fs::path(blob).parent_path().string(), "the cache");
  const std::string partial = blob + ".incomplete";
  uint64_t fetched = 0;
  {
    const Fd out{open_for_writing(partial, O_WRONLY | O_APPEND)};
    if (size_of(out.fd) > meta.size && ftruncate(out.fd, 0) != 0)
      throw std::runtime_error("cannot truncate " + partial);
    if (size_of(out.fd) < meta.size || meta.size == 0)
      fetched = transfer(hub, meta, name, partial, out.fd, request);
    fsync(out.fd);
  }
  verify(partial, name, meta);
  fs::rename(partial, blob);
  return fetched;
}

DownloadResult download_model(const DownloadRequest& request, const HubClient& hub) {
  require(hub::is_repo_id(request.name),
          "'" + request.name +
              "' is not a Hugging Face repo id (ORG/NAME) or GPT-2 name (gpt2, "
              "gpt2-medium, gpt2-large, gpt2-xl)");
  const std::string repo_id = request.name;
  const RepoInfo info = fetch_repo_info(hub, repo_id, request.revision);
  const std::vector<std::string> files = files_to_fetch(repo_id, info.files);
  const std::string repo = hub::repo_folder(hub::cache_dir(), repo_id);
  DownloadResult result;
  result.commit = info.commit;
  result.snapshot = repo + "/snapshots/" + info.commit;
  for (const std::string& file : files) {
    const FileMeta meta = fetch_file_meta(hub, repo_id, info.commit, file);
    result.bytes_fetched += fetch_blob(hub, meta, file, blob_path(repo, meta.etag), request);
    link_into_snapshot(repo, info.commit, file, meta.etag);
    result.files.push_back(file);
    if (file == "config.json") {
      const std::string type = model_type_of(result.snapshot + "/config.json");
      require(type == "gpt2", repo_id + " is " + (type.empty() ? "no model" : "a " + type) +
                                  " model (config.json model_type), not GPT-2; tinylm reads "
                                  "GPT-2 models");
    }
  }
  write_ref(repo, request.revision, info.commit);
  if (!request.out.empty()) {
    create_folder(request.out, "--out");
    for (const std::string& file : files) {
      create_folder(fs::path(request.out + "/" + file).parent_path().string(), "--out");
      copy_file_atomic(result.snapshot + "/" + file, request.out + "/" + file);
    }
  }
  return result;
}

}  // namespace tinylm::download
