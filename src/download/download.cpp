// `tinylm download` (see download.h).
#include "download/download.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "download/cache_store.h"
#include "download/fetch_file.h"
#include "hub/hub_cache.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::download {

namespace fs = std::filesystem;

namespace {

// The config.json model_types tinylm opens (model/hf_lm.h: GPT-2, and the llama family of
// model/hf_llama.h), checked before any weight is fetched.
const char* const kModelTypes[] = {"gpt2", "llama", "qwen2", "qwen3"};

std::string model_type_of(const std::string& config_path) {
  const nlohmann::json j = read_json_file(config_path);
  return j.is_object() && j.contains("model_type") && j["model_type"].is_string()
             ? j["model_type"].get<std::string>()
             : "";
}

// --out: plain copies of the snapshot's files (the links followed).
void copy_files(const std::string& snapshot, const std::vector<std::string>& files,
                const std::string& out) {
  create_folder(out, "--out");
  for (const std::string& file : files) {
    create_folder(fs::path(out + "/" + file).parent_path().string(), "--out");
    copy_file_atomic(snapshot + "/" + file, out + "/" + file);
  }
}

// A revision names refs/<revision> in the cache: a branch may hold '/' (refs/pr/1), but no
// part may be empty, "." or "..", which would put the file outside refs/.
void check_revision(const std::string& revision) {
  bool ok = !revision.empty() && revision.find('\\') == std::string::npos;
  for (size_t at = 0; ok && at <= revision.size();) {
    const size_t end = std::min(revision.find('/', at), revision.size());
    const std::string part = revision.substr(at, end - at);
    ok = !part.empty() && part != "." && part != "..";
    at = end + 1;
  }
  require(ok, "--revision '" + revision +
                  "' is not a branch, tag or commit name (parts between '/' must not be "
                  "empty, '.' or '..')");
}

}  // namespace

DownloadResult download_model(const DownloadRequest& request, const HubClient& hub) {
  require(hub::is_repo_id(request.name),
          "'" + request.name +
              "' is not a Hugging Face repo id (ORG/NAME) or GPT-2 name (gpt2, "
              "gpt2-medium, gpt2-large, gpt2-xl)");
  const std::string repo_id = request.name;
  check_revision(request.revision);
  if (!request.out.empty()) require_writable_folder(request.out, "--out");
  const RepoInfo info = fetch_repo_info(hub, repo_id, request.revision);
  const std::vector<std::string> files = files_to_fetch(repo_id, info.files);
  const std::string repo = hub::repo_folder(hub::cache_dir(), repo_id);
  DownloadResult result;
  result.commit = info.commit;
  result.snapshot = repo + "/snapshots/" + info.commit;
  for (const std::string& file : files) {
    const FileMeta meta = fetch_file_meta(hub, repo_id, info.commit, file);
    result.bytes_fetched += fetch_file(hub.options(hub.download_timeout_s), meta, file,
                                       blob_path(repo, meta.etag), request);
    link_into_snapshot(repo, info.commit, file, meta.etag);
    result.files.push_back(file);
    if (file == "config.json") {
      const std::string type = model_type_of(result.snapshot + "/config.json");
      require(
          std::find(std::begin(kModelTypes), std::end(kModelTypes), type) != std::end(kModelTypes),
          repo_id + " is " + (type.empty() ? "no model" : "a " + type) +
              " model (config.json model_type); tinylm reads gpt2, llama, qwen2 and qwen3");
    }
  }
  write_ref(repo, request.revision, info.commit);
  if (!request.out.empty()) copy_files(result.snapshot, files, request.out);
  return result;
}

}  // namespace tinylm::download
