// Reading whole files and writing them atomically (temp file + rename), so a failing
// or killed run never leaves a half-written file where a good one was.
// Errors: a path that cannot be opened (missing, a folder, no permission, read-only
// file system) is bad input (InputError, with the system's reason); a failure while
// writing an opened file (disk full, I/O error) is a runtime failure.
#pragma once
#include <string>
#include <string_view>

namespace tinylm {

// Reads a whole regular file; throws InputError naming the path if it cannot be opened
// or is not a regular file (a folder is not read as an empty file).
std::string read_file(const std::string& path);

// Throws the InputError read_file would ("cannot open <path>: No such file or directory",
// "<path> is a folder, not a file") unless path names a regular file that can be opened.
// For readers that look at a path (its extension) before they read the file, so that a
// folder is refused as a folder, not for its name.
void require_readable_file(const std::string& path);

// Writes `bytes` to `path + ".tmp"`, flushes it to disk, renames it over `path`, then
// flushes the folder so that the rename itself survives a crash.
void write_file_atomic(const std::string& path, std::string_view bytes);

bool file_exists(const std::string& path);
bool is_directory(const std::string& path);

// Creates the folder dir (and its parents) if missing; InputError with the system's
// reason when it cannot (or dir is a file). `what` names the flag ("--out").
void create_folder(const std::string& dir, const std::string& what);

// Throws InputError unless the folder dir exists and is writable, or could be created:
// its nearest existing ancestor is a writable folder. Touches nothing; lets a verb refuse
// an unwritable output folder before doing its work.
void require_writable_folder(const std::string& dir, const std::string& what);

// Throws InputError unless `path` names a place a file can be created or replaced: its
// folder exists and is writable, and `path` itself is not a folder. Lets a verb refuse
// an unwritable output before doing its work; `what` names the flag ("--out").
void require_writable_file(const std::string& path, const std::string& what);

// A file opened for appending (a run's log.jsonl). Every append is written in full and
// flushed, or throws: a full disk never silently drops a line.
class AppendFile {
 public:
  // truncate: start empty instead of appending. InputError if it cannot be opened.
  AppendFile(const std::string& path, bool truncate);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  void append(std::string_view bytes);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace tinylm
