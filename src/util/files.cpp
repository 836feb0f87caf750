#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "util/error.h"

namespace tinylm {

namespace {

std::string reason() {
  return std::strerror(errno);
}

// The folder holding path ("." for a bare name).
std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Writes all of bytes to fd (retrying short writes and EINTR); false on an error.
bool write_all(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// Opens a regular file for reading; InputError naming the path otherwise. Fills st.
int open_regular_file(const std::string& path, struct stat& st) {
  require(!path.empty(), "empty file name");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot open " + path + ": " + reason());
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    throw InputError(path + (dir ? " is a folder, not a file" : " is not a regular file"));
  }
  return fd;
}

}  // namespace

void require_readable_file(const std::string& path) {
  struct stat st {};
  ::close(open_regular_file(path, st));
}

std::string read_file(const std::string& path) {
  struct stat st {};
  const int fd = open_regular_file(path, st);
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  for (;;) {
    if (done == out.size()) out.resize(out.size() + 65536);  // the file grew, or /proc
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = reason();
      ::close(fd);
      throw InputError("cannot read " + path + ": " + why);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  require(!path.empty(), "empty output file name");
  require(!is_directory(path), "cannot write " + path + ": it is a folder");
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError("cannot write " + path + ": " + reason());
  if (!write_all(fd, bytes)) {
    const std::string why = reason();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write " + tmp + ": " + why);
  }
  if (::fsync(fd) != 0) {
    const std::string why = reason();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot flush " + tmp + ": " + why);
  }
  if (::close(fd) != 0) {
    const std::string why = reason();
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot flush " + tmp + ": " + why);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = reason();
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + why);
  }
  // The rename is an entry of the folder: flush the folder too.
  const int dir = ::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    const int rc = ::fsync(dir);
    const int err = errno;
    ::close(dir);
    if (rc != 0 && err != EINVAL)  // EINVAL: a file system without folder fsync
      throw std::runtime_error("cannot flush the folder of " + path + ": " + std::strerror(err));
  }
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void create_folder(const std::string& dir, const std::string& what) {
  require(!dir.empty(), what + ": empty folder name");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(what + ": cannot create the folder " + dir + ": " + ec.message());
  require(is_directory(dir), what + ": " + dir + " is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(what + ": cannot write into " + dir + ": " + reason());
}

void require_writable_folder(const std::string& dir, const std::string& what) {
  require(!dir.empty(), what + ": empty folder name");
  std::string existing = dir;
  while (!file_exists(existing)) {
    const std::string parent = parent_of(existing);
    if (parent == existing) break;
    existing = parent;
  }
  if (existing != dir && file_exists(existing) && !is_directory(existing))
    throw InputError(what + ": cannot create " + dir + ": " + existing + ": " +
                     std::strerror(ENOTDIR));
  require(is_directory(existing), what + ": " + dir + " is not a folder");
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    throw InputError(what + ": cannot write into " + existing + ": " + reason());
}

void require_writable_file(const std::string& path, const std::string& what) {
  require(!path.empty(), what + ": empty file name");
  require(!is_directory(path), what + ": " + path + " is a folder, not a file");
  const std::string dir = parent_of(path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(what + ": cannot write " + path + ": " + reason());
}

AppendFile::AppendFile(const std::string& path, bool truncate) : path_(path) {
  fd_ =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND), 0644);
  if (fd_ < 0) throw InputError("cannot write " + path + ": " + reason());
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::append(std::string_view bytes) {
  if (!write_all(fd_, bytes)) throw std::runtime_error("cannot write " + path_ + ": " + reason());
}

}  // namespace tinylm
