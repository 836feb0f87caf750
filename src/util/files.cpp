#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
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

// ".tmp-" and 8 random characters: a name no other writer of the same path picks.
std::string temp_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device device;
  std::string s = ".tmp-";
  for (int i = 0; i < 8; ++i) s += kChars[device() % 36];
  return s;
}

// Tries `make(name)` on fresh temp names beside path until one is new; make returns
// false with errno EEXIST when the name is taken. Returns the name made; otherwise
// InputError(error + ": " + the system's reason).
template <typename Make>
std::string make_unique_temp(const std::string& path, const std::string& error, Make make) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = path + temp_suffix();
    if (make(name)) return name;
    if (errno != EEXIST) throw InputError(error + ": " + reason());
  }
  throw std::runtime_error("cannot find a free temporary name beside " + path);
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

namespace {

// Renames from to `to` only if `to` does not exist, in one step (renameat2's
// RENAME_NOREPLACE; where a file system lacks it, a file is linked then unlinked, which
// also never replaces, and a folder falls back to a check before the rename). False with
// errno EEXIST when `to` exists.
bool rename_no_replace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno != EINVAL && errno != ENOSYS) return false;
  struct stat st {};
  if (::lstat(from.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    if (::link(from.c_str(), to.c_str()) != 0) return false;
    ::unlink(from.c_str());
    return true;
  }
  if (::lstat(to.c_str(), &st) == 0) {
    errno = EEXIST;
    return false;
  }
  return std::rename(from.c_str(), to.c_str()) == 0;
}

void flush_folder_of(const std::string& path) {
  const int dir = ::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  const int rc = ::fsync(dir);
  const int err = errno;
  ::close(dir);
  if (rc != 0 && err != EINVAL)  // EINVAL: a file system without folder fsync
    throw std::runtime_error("cannot flush the folder of " + path + ": " + std::strerror(err));
}

// write_file_atomic and write_new_file_atomic: the rename replaces path or never does.
void write_atomic(const std::string& path, std::string_view bytes, bool replace) {
  require(!path.empty(), "empty output file name");
  struct stat st {};
  require(::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode),
          "cannot write " + path + ": it is a folder");
  int fd = -1;
  const std::string tmp =
      make_unique_temp(path, "cannot write " + path, [&](const std::string& name) {
        fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        return fd >= 0;
      });
  const auto fail = [&](const std::string& what) {
    const std::string why = reason();
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());  // ours: made exclusively above
    throw std::runtime_error(what + ": " + why);
  };
  if (!write_all(fd, bytes)) fail("cannot write " + tmp);
  if (::fsync(fd) != 0) fail("cannot flush " + tmp);
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) fail("cannot flush " + tmp);
  if (replace ? std::rename(tmp.c_str(), path.c_str()) == 0 : rename_no_replace(tmp, path)) {
    flush_folder_of(path);  // the rename is an entry of the folder: flush it too
    return;
  }
  if (errno != EEXIST) fail("cannot rename " + tmp + " to " + path);
  ::unlink(tmp.c_str());
  throw InputError(path + " appeared while it was being written; tinylm does not overwrite it");
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
  write_atomic(path, bytes, /*replace=*/true);
}

void write_new_file_atomic(const std::string& path, std::string_view bytes) {
  write_atomic(path, bytes, /*replace=*/false);
}

void publish_new_folder(const std::string& temp, const std::string& path) {
  if (rename_no_replace(temp, path)) return flush_folder_of(path);
  if (errno == EEXIST || errno == ENOTEMPTY)
    throw InputError(path + " appeared while it was being written; tinylm does not overwrite it");
  throw std::runtime_error("cannot rename " + temp + " to " + path + ": " + reason());
}

std::string make_temp_folder(const std::string& path, const std::string& what) {
  require(!path.empty(), what + ": empty folder name");
  return make_unique_temp(path, what + " " + path + ": cannot create the folder",
                          [](const std::string& name) { return ::mkdir(name.c_str(), 0777) == 0; });
}

int open_for_writing(const std::string& path, int flags) {
  require(!path.empty(), "empty output file name");
  const int fd = ::open(path.c_str(), flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0) return fd;
  const std::string why = reason();
  if (errno == ELOOP && is_symlink(path))
    throw InputError(path + " is a symbolic link: tinylm does not write through links (remove it)");
  throw InputError("cannot write " + path + ": " + why);
}

void create_own_folder(const std::string& dir) {
  require(!dir.empty(), "empty folder name");
  const std::string parent = parent_of(dir);
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw InputError("cannot create the folder " + parent + ": " + ec.message());
  if (is_symlink(dir) && ::unlink(dir.c_str()) != 0)
    throw InputError("cannot replace the link " + dir + ": " + reason());
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw InputError("cannot create the folder " + dir + ": " + reason());
  struct stat st {};
  require(::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode), dir + " is not a folder");
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
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
  if (truncate) write_file_atomic(path, "");  // a new file, whatever held the name
  fd_ = open_for_writing(path, O_WRONLY | O_APPEND);
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::append(std::string_view bytes) {
  if (!write_all(fd_, bytes)) throw std::runtime_error("cannot write " + path_ + ": " + reason());
}

}  // namespace tinylm
