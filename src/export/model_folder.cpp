#include "export/model_folder.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "tokenizer/folder_tokenizer_files.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

namespace fs = std::filesystem;

namespace {

// What a refused --out is told when something is there already.
std::string refused(const std::string& out) {
  return "--out " + out +
         " already exists and is not an empty folder (tinylm does not overwrite it)";
}

// The folder holding out ("." for a bare name).
std::string parent_of(const std::string& out) {
  const size_t slash = out.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : out.substr(0, slash);
}

// The folders creating `parent` makes, deepest first (none when it exists).
std::vector<fs::path> missing_folders(const std::string& parent) {
  std::vector<fs::path> missing;
  for (fs::path p = parent; !p.empty() && !fs::exists(fs::symlink_status(p)); p = p.parent_path())
    missing.push_back(p);
  return missing;
}

// Renames the filled folder tmp to out (an empty folder there is replaced).
void move_into_place(const std::string& tmp, const std::string& out) {
  if (std::rename(tmp.c_str(), out.c_str()) == 0) return;
  const int err = errno;
  if (err == ENOTEMPTY || err == EEXIST || err == ENOTDIR || err == EISDIR)
    throw InputError(refused(out));
  throw InputError("--out " + out + ": cannot rename " + tmp + " to it: " + std::strerror(err));
}

}  // namespace

std::string checked_model_folder(const std::string& given) {
  std::string out = given;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  const std::string name = out.substr(out.find_last_of('/') + 1);
  require(!name.empty() && name != "." && name != "..", [&] {
    return "--out " + given +
           " names no new file or folder: name the new folder itself (not '.' or '..')";
  });
  struct stat st {};
  if (::lstat(out.c_str(), &st) == 0) {
    require(!S_ISLNK(st.st_mode),
            "--out " + out + " is a symbolic link (refusing to write through or replace it)");
    std::error_code ec;
    require(S_ISDIR(st.st_mode) && fs::is_empty(out, ec) && !ec, [&] { return refused(out); });
  }
  require_writable_folder(parent_of(out), "--out " + out);
  return out;
}

bool write_model_folder(const std::string& given_out, const Tokenizer* tokenizer,
                        int64_t model_max_length,
                        const std::function<void(const std::string& dir)>& write) {
  const std::string out = checked_model_folder(given_out);
  const std::string parent = parent_of(out);
  const std::vector<fs::path> made = missing_folders(parent);
  if (!made.empty()) create_folder(parent, "--out " + out);
  std::string tmp;
  try {
    tmp = make_temp_folder(out, "--out");
    write(tmp);
    const bool tokenizer_files =
        tokenizer && write_folder_tokenizer_files(*tokenizer, model_max_length, tmp);
    move_into_place(tmp, out);
    return tokenizer_files;
  } catch (...) {
    std::error_code ec;
    if (!tmp.empty()) fs::remove_all(tmp, ec);
    for (const fs::path& folder : made) fs::remove(folder, ec);  // if still empty
    throw;
  }
}

}  // namespace tinylm
