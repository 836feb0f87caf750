// The Hugging Face hub's HTTP API as huggingface_hub uses it, for downloads:
//   GET  {endpoint}/api/models/{repo}/revision/{revision}   the commit and the file list
//   HEAD {endpoint}/{repo}/resolve/{commit}/{file}           etag, size, commit; a large
//        (LFS) file answers with a redirect whose X-Linked-Etag is its sha256
// Settings from the environment as huggingface_hub reads them: HF_ENDPOINT (default
// https://huggingface.co), HF_TOKEN (else the token file $HF_TOKEN_PATH or $HF_HOME/token),
// HF_HUB_ETAG_TIMEOUT and HF_HUB_DOWNLOAD_TIMEOUT (seconds, default 10).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "download/http.h"

namespace tinylm::download {

struct HubClient {
  std::string endpoint;  // no trailing '/'
  std::string token;     // "" for anonymous
  double etag_timeout_s = 10;
  double download_timeout_s = 10;

  static HubClient from_environment();
  // Headers for requests to the hub (the token when there is one).
  HttpOptions options(double read_timeout_s) const;
};

struct RepoInfo {
  std::string commit;              // 40 hex
  std::vector<std::string> files;  // every file of the revision (rfilename)
};

// The revision's commit and files. InputError (exit 2) when the hub does not know the repo
// or the revision (404, 401 for an unknown repo without a token); DownloadError (exit 1)
// for a gated or private repo (403, 401 with a token: says to set HF_TOKEN), any other
// status (the status and the hub's message) or a network failure.
RepoInfo fetch_repo_info(const HubClient& hub, const std::string& repo_id,
                         const std::string& revision);

// Of a repo's files, those tinylm reads, in download order (config.json first): config,
// generation config, tokenizer files (tokenizer_config.json, chat_template.jinja,
// tokenizer.json, GPT-2's vocab.json and merges.txt), safetensors weights (one file, or
// model.safetensors.index.json and its shards model-NNNNN-of-NNNNN.safetensors), PEFT
// adapter files. InputError when there is nothing tinylm can load: no config.json and no
// adapter_config.json, or weights only as pytorch_model.bin.
std::vector<std::string> files_to_fetch(const std::string& repo_id,
                                        const std::vector<std::string>& files);

struct FileMeta {
  std::string etag;   // the blob's name in the cache: sha256 for LFS files
  uint64_t size = 0;  // bytes
  bool lfs = false;   // the etag is the file's sha256
  std::string url;    // where to GET it
};

// HEAD of one file at a commit. DownloadError with the status for anything but 2xx/3xx.
FileMeta fetch_file_meta(const HubClient& hub, const std::string& repo_id,
                         const std::string& commit, const std::string& file);

// Percent-encoding of a URL path segment; keep_slash leaves '/' as it is (file paths).
std::string url_escape(const std::string& s, bool keep_slash);

}  // namespace tinylm::download
