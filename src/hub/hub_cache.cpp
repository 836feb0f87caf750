// The Hugging Face cache layout (see hub_cache.h).
#include "hub/hub_cache.h"

#include <cstdlib>

#include "util/error.h"
#include "util/files.h"

namespace tinylm::hub {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool is_hex_commit(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

bool is_repo_part(const std::string& part) {
  if (part.empty() || part.front() == '-' || part.front() == '.' || part.back() == '-' ||
      part.back() == '.')
    return false;
  for (char c : part)
    if (!is_name_char(c)) return false;
  return true;
}

// The trimmed first line of a refs/ file ("" when it cannot be read).
std::string read_ref(const std::string& path) {
  if (!file_exists(path)) return "";
  std::string s = read_file(path);
  const size_t end = s.find_first_of("\r\n");
  return end == std::string::npos ? s : s.substr(0, end);
}

}  // namespace

std::string cache_dir() {
  if (std::string d = env("HF_HUB_CACHE"); !d.empty()) return d;
  if (std::string d = env("HUGGINGFACE_HUB_CACHE"); !d.empty()) return d;  // older name
  if (std::string d = env("HF_HOME"); !d.empty()) return d + "/hub";
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/huggingface/hub";
  return env("HOME") + "/.cache/huggingface/hub";
}

bool is_repo_id(const std::string& name) {
  if (name.empty() || name.size() > 96 || name.find("--") != std::string::npos ||
      name.find("..") != std::string::npos)
    return false;
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return is_repo_part(name);
  return is_repo_part(name.substr(0, slash)) && is_repo_part(name.substr(slash + 1));
}

bool is_gpt2_short_name(const std::string& name) {
  return name == "gpt2" || name == "gpt2-medium" || name == "gpt2-large" || name == "gpt2-xl";
}

std::vector<std::string> cache_names(const std::string& name) {
  if (is_gpt2_short_name(name)) return {name, "openai-community/" + name};
  return {name};
}

std::string repo_folder(const std::string& cache, const std::string& repo_id) {
  std::string flat = repo_id;
  if (const size_t slash = flat.find('/'); slash != std::string::npos) flat.replace(slash, 1, "--");
  return cache + "/models--" + flat;
}

std::string find_snapshot(const std::string& cache, const std::string& repo_id,
                          const std::string& revision) {
  require(!revision.empty() && revision.front() != '/' && revision.find("..") == std::string::npos,
          "revision '" + revision + "': not a branch, tag or commit hash");
  const std::string repo = repo_folder(cache, repo_id);
  const std::string commit =
      is_hex_commit(revision) ? revision : read_ref(repo + "/refs/" + revision);
  if (!is_hex_commit(commit)) return "";
  const std::string snapshot = repo + "/snapshots/" + commit;
  return is_directory(snapshot) ? snapshot : "";
}

std::string find_cached_model(const std::string& name) {
  if (!is_repo_id(name)) return "";
  const std::string cache = cache_dir();
  for (const std::string& repo_id : cache_names(name))
    if (std::string snapshot = find_snapshot(cache, repo_id); !snapshot.empty()) return snapshot;
  return "";
}

std::string folder_or_cached(const std::string& path_or_name) {
  if (file_exists(path_or_name)) return path_or_name;
  const std::string snapshot = find_cached_model(path_or_name);
  return snapshot.empty() ? path_or_name : snapshot;
}

}  // namespace tinylm::hub
