// OpenAI's GPT-2 release files (see openai_release.h).
#include "download/openai_release.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "download/fetch_file.h"
#include "io/tf_bundle.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::download {

namespace fs = std::filesystem;

namespace {

const char* const kFiles[] = {"checkpoint", "hparams.json",     "encoder.json",
                              "vocab.bpe",  "model.ckpt.index", "model.ckpt.data-00000-of-00001"};

std::string base_url() {
  const char* v = std::getenv("TINYLM_OPENAI_GPT2_URL");
  std::string url = v && *v ? v : "https://openaipublic.blob.core.windows.net/gpt-2/models";
  while (url.ends_with('/')) url.pop_back();
  return url;
}

// The size the storage announces for url (HEAD, following no redirect).
FileMeta meta_of(const std::string& url, const std::string& name, const HttpOptions& http) {
  const HttpResponse r = head(url, http);
  if (r.status != 200)
    throw DownloadError("OpenAI's storage answered HTTP " + std::to_string(r.status) + " for " +
                        name + " (" + url + ")");
  const std::string size = r.header("content-length");
  if (size.empty() || size.find_first_not_of("0123456789") != std::string::npos)
    throw DownloadError("OpenAI's storage sent no size for " + name);
  FileMeta m;
  m.size = std::stoull(size);
  m.url = url;
  return m;
}

// Every block's and tensor's checksum; a corrupt checkpoint is removed (index and data) so
// that the next run fetches it anew.
void check_checkpoint(const std::string& dir) {
  const std::string prefix = dir + "/model.ckpt";
  try {
    const TfBundle bundle = open_tf_bundle(prefix);
    for (const TfBundleEntry& e : bundle.tensors())
      if (!e.sliced) bundle.read_bytes(e.name);
  } catch (const InputError& e) {
    fs::remove(prefix + ".index");
    fs::remove(prefix + ".data-00000-of-00001");
    throw DownloadError(std::string(e.what()) + "; the checkpoint (" + prefix +
                        ".*) was removed, run the command again to fetch it anew");
  }
}

// The folders create_folder(dir) would make: dir and its parents up to the nearest one
// that exists, deepest first.
std::vector<fs::path> folders_to_make(const std::string& dir) {
  std::vector<fs::path> made;
  for (fs::path p = fs::path(dir).lexically_normal(); !p.empty() && !fs::exists(p);
       p = p.parent_path())
    made.push_back(p);
  return made;
}

// After a failed download: the folders it made go again while they are empty (a partial
// file stays, for the same command to resume).
void remove_if_empty(const std::vector<fs::path>& made) {
  std::error_code ec;
  for (const fs::path& p : made)
    if (fs::is_directory(p, ec) && fs::is_empty(p, ec)) fs::remove(p, ec);
}

DownloadResult fetch_release(const DownloadRequest& request, const std::string& size,
                             const std::string& dir) {
  HttpOptions http;
  DownloadResult result;
  result.snapshot = dir;
  for (const char* file : kFiles) {
    const std::string url = base_url() + "/" + size + "/" + file;
    const std::string path = dir + "/" + file;
    if (!file_exists(path))
      result.bytes_fetched += fetch_file(http, meta_of(url, file, http), file, path, request);
    result.files.push_back(file);
  }
  check_checkpoint(dir);
  return result;
}

}  // namespace

std::string openai_model_size(const std::string& name) {
  if (name == "gpt2" || name == "124M") return "124M";
  if (name == "gpt2-medium" || name == "355M") return "355M";
  if (name == "gpt2-large" || name == "774M") return "774M";
  if (name == "gpt2-xl" || name == "1558M") return "1558M";
  throw InputError("--source openai: '" + name +
                   "' is not one of OpenAI's GPT-2 models (gpt2, gpt2-medium, gpt2-large, "
                   "gpt2-xl)");
}

std::string default_openai_folder(const std::string& name) {
  return "openai-gpt2/" + openai_model_size(name);
}

DownloadResult download_openai_gpt2(const DownloadRequest& request) {
  const std::string size = openai_model_size(request.name);
  const std::string dir = request.out.empty() ? default_openai_folder(request.name) : request.out;
  const std::vector<fs::path> made = folders_to_make(dir);
  create_folder(dir, "--out");
  try {
    return fetch_release(request, size, dir);
  } catch (...) {
    remove_if_empty(made);
    throw;
  }
}

}  // namespace tinylm::download
