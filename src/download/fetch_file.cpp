// One file over HTTP, resumable and checked (see fetch_file.h).
#include "download/fetch_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "download/progress.h"
#include "download/sha256.h"
#include "util/error.h"
#include "util/files.h"

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
    reject(
        partial, name,
        "got " + std::to_string(got) + " bytes, the server announced " + std::to_string(meta.size));
  if (!meta.lfs) return;
  const std::string sha = sha256_of_file(partial);
  if (sha != meta.etag)
    reject(partial, name, "sha256 " + sha + " is not the published " + meta.etag + " (corrupt)");
}

// Fetches bytes [have, size) of the file into fd (from 0 when the server ignores the range).
uint64_t transfer(const HttpOptions& http, const FileMeta& meta, const std::string& name,
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
    r = get_to_sink(meta.url, from, http, sink, tick);
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

}  // namespace

uint64_t fetch_file(const HttpOptions& http, const FileMeta& meta, const std::string& name,
                    const std::string& path, const DownloadRequest& request) {
  if (file_exists(path)) return 0;
  create_folder(fs::path(path).parent_path().string(), "the download folder");
  const std::string partial = path + ".incomplete";
  uint64_t fetched = 0;
  {
    const Fd out{open_for_writing(partial, O_WRONLY | O_APPEND)};
    if (size_of(out.fd) > meta.size && ftruncate(out.fd, 0) != 0)
      throw std::runtime_error("cannot truncate " + partial);
    if (size_of(out.fd) < meta.size || meta.size == 0)
      fetched = transfer(http, meta, name, partial, out.fd, request);
    fsync(out.fd);
  }
  verify(partial, name, meta);
  fs::rename(partial, path);
  return fetched;
}

}  // namespace tinylm::download
