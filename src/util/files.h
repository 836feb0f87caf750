// Reading whole files and writing them atomically (temp file + rename), so a failing
// or killed run never leaves a half-written file where a good one was.
// Writing never goes through a symbolic link: temporary files and folders get unique
// names and are created exclusively (O_CREAT | O_EXCL | O_NOFOLLOW, mkdir), so two
// processes writing one path never share a temp file and a planted name is never reused;
// a link at the destination of a rename is replaced (the link, never what it points to);
// a file opened in place (a log, a lock) is opened with O_NOFOLLOW. tinylm removes only
// what it created.
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

// Writes `bytes` to a new file beside `path` (path + ".tmp-" and 8 random characters,
// created exclusively, never through a link), flushes it to disk, renames it over `path`,
// then flushes the folder so that the rename itself survives a crash. A symbolic link at
// `path` is replaced by the file. On failure the temp file is removed.
void write_file_atomic(const std::string& path, std::string_view bytes);

// write_file_atomic for a file that must be new: the rename never replaces (renameat2's
// RENAME_NOREPLACE), so a file that appears at `path` while this one is written stays,
// and InputError says so (the temp file removed).
void write_new_file_atomic(const std::string& path, std::string_view bytes);

// Renames the filled folder `temp` (make_temp_folder's) to `path` unless something is at
// `path` by then (even an empty folder, which a plain rename would replace): InputError,
// and temp stays for the caller to remove.
void publish_new_folder(const std::string& temp, const std::string& path);

// Makes a new empty folder beside `path` (path + ".tmp-" and 8 random characters) with
// mkdir, which never takes an existing folder or link; returns its name. For a folder to
// be filled and then renamed into place. InputError naming `what` and path when the
// folder cannot be made (its parent is missing, a file or not writable).
std::string make_temp_folder(const std::string& path, const std::string& what);

// Opens `path` for writing in place (a log to append to, a lock file): `flags` (O_RDWR or
// O_WRONLY, O_APPEND) with O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode 0644. Returns the file
// descriptor. InputError when path is a symbolic link ("... is a symbolic link: tinylm
// does not write through links") or cannot be opened.
int open_for_writing(const std::string& path, int flags);

// Makes the folder `dir` whose name tinylm chose inside a folder it writes (RUN/adapter,
// RUN/hf, a merged folder), and its missing parents. A symbolic link at dir itself is
// replaced by a new folder (the link is removed, never what it points to), so that the
// files written into dir stay there. InputError when dir is a file or cannot be made.
void create_own_folder(const std::string& dir);

bool file_exists(const std::string& path);
bool is_directory(const std::string& path);
// path itself is a symbolic link (not followed).
bool is_symlink(const std::string& path);

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

// A file opened for appending (a run's log.jsonl), never through a symbolic link. Every
// append is written in full and flushed, or throws: a full disk never silently drops a
// line.
class AppendFile {
 public:
  // truncate: start with a new empty file (replacing whatever entry has the name, a link
  // included) instead of appending. InputError if it cannot be opened, or when appending
  // to a symbolic link (open_for_writing).
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
