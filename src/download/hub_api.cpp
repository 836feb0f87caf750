// The hub's API (see hub_api.h).
#include "download/hub_api.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::download {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

double seconds_from_env(const char* name, double fallback) {
  const std::string v = env(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  const double s = std::strtod(v.c_str(), &end);
  require(end && *end == '\0' && s > 0 && s < 1e6,
          std::string(name) + "=" + v + ": not a number of seconds");
  return s;
}

std::string first_line(const std::string& path) {
  if (!file_exists(path)) return "";
  std::string s = read_file(path);
  s = s.substr(0, s.find_first_of("\r\n"));
  return s;
}

// The hub's own words for a failed request ({"error": "..."}), when it sent any.
std::string hub_message(const HttpResponse& r) {
  try {
    const nlohmann::json j = nlohmann::json::parse(r.body);
    if (j.is_object() && j.contains("error") && j["error"].is_string())
      return ": " + j["error"].get<std::string>();
  } catch (const nlohmann::json::exception&) {
  }
  return "";
}

std::string strip_etag(std::string e) {
  if (e.starts_with("W/")) e = e.substr(2);
  if (e.size() >= 2 && e.front() == '"' && e.back() == '"') e = e.substr(1, e.size() - 2);
  return e;
}

bool is_commit_hash(const std::string& s) {
  return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool has(const std::vector<std::string>& files, const std::string& name) {
  return std::find(files.begin(), files.end(), name) != files.end();
}

}  // namespace

HubClient HubClient::from_environment() {
  HubClient h;
  h.endpoint = env("HF_ENDPOINT").empty() ? "https://huggingface.co" : env("HF_ENDPOINT");
  while (h.endpoint.ends_with('/')) h.endpoint.pop_back();
  h.token = env("HF_TOKEN");
  if (h.token.empty()) {
    std::string path = env("HF_TOKEN_PATH");
    if (path.empty()) {
      const std::string home = env("HF_HOME");
      path = (home.empty() ? env("HOME") + "/.cache/huggingface" : home) + "/token";
    }
    h.token = first_line(path);
  }
  h.etag_timeout_s = seconds_from_env("HF_HUB_ETAG_TIMEOUT", 10);
  h.download_timeout_s = seconds_from_env("HF_HUB_DOWNLOAD_TIMEOUT", 10);
  return h;
}

HttpOptions HubClient::options(double read_timeout_s) const {
  HttpOptions o;
  o.read_timeout_s = read_timeout_s;
  o.connect_timeout_s = read_timeout_s;
  if (!token.empty()) o.headers["Authorization"] = "Bearer " + token;
  return o;
}

std::string url_escape(const std::string& s, bool keep_slash) {
  std::string out;
  char hex[4];
  for (unsigned char c : s) {
    const bool plain =
        std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
    if (plain) {
      out += static_cast<char>(c);
    } else {
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

RepoInfo fetch_repo_info(const HubClient& hub, const std::string& repo_id,
                         const std::string& revision) {
  const std::string url =
      hub.endpoint + "/api/models/" + repo_id + "/revision/" + url_escape(revision, false);
  const HttpResponse r = get_text(url, hub.options(hub.etag_timeout_s));
  const std::string where = repo_id + " (revision " + revision + ") on " + hub.endpoint;
  if (r.status == 404 || (r.status == 401 && hub.token.empty()))
    throw InputError("no model repo " + where + hub_message(r) +
                     " (a private or gated repo needs HF_TOKEN)");
  if (r.status == 401 || r.status == 403)
    throw DownloadError("access to " + where + " refused (HTTP " + std::to_string(r.status) + ")" +
                        hub_message(r) +
                        ": a gated repo needs its terms accepted and HF_TOKEN set");
  if (r.status != 200)
    throw DownloadError("the hub answered HTTP " + std::to_string(r.status) + " for " + where +
                        hub_message(r));
  RepoInfo info;
  try {
    const nlohmann::json j = nlohmann::json::parse(r.body);
    info.commit = j.at("sha").get<std::string>();
    for (const nlohmann::json& f : j.at("siblings")) info.files.push_back(f.at("rfilename"));
  } catch (const nlohmann::json::exception& e) {
    throw DownloadError("the hub's answer for " + where +
                        " is not a model's description: " + e.what());
  }
  if (!is_commit_hash(info.commit))  // it names a folder of the cache
    throw DownloadError("the hub's commit for " + where + " is not a commit hash: " + info.commit);
  return info;
}

namespace {

// transformers' shard names: model-00001-of-00002.safetensors.
bool is_weight_shard(const std::string& name) {
  const std::string prefix = "model-", suffix = ".safetensors";
  return name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
         name.find("-of-") != std::string::npos && name.find('/') == std::string::npos;
}

}  // namespace

std::vector<std::string> files_to_fetch(const std::string& repo_id,
                                        const std::vector<std::string>& files) {
  const bool model = has(files, "config.json"), adapter = has(files, "adapter_config.json");
  require(model || adapter, repo_id +
                                ": no config.json or adapter_config.json: not a model or PEFT "
                                "adapter repo");
  const bool sharded = has(files, "model.safetensors.index.json");
  if (model && !has(files, "model.safetensors") && !sharded && !adapter)
    throw InputError(repo_id +
                     (has(files, "pytorch_model.bin")
                          ? ": the weights are only pytorch_model.bin (a PyTorch pickle); tinylm "
                            "reads safetensors (convert with transformers' save_pretrained)"
                          : ": no model.safetensors"));
  std::vector<std::string> out;
  for (const char* name :
       {"config.json", "adapter_config.json", "generation_config.json", "tokenizer_config.json",
        "special_tokens_map.json", "chat_template.jinja", "vocab.json", "merges.txt",
        "tokenizer.json", "model.safetensors", "model.safetensors.index.json",
        "adapter_model.safetensors"})
    if (has(files, name)) out.push_back(name);
  std::vector<std::string> shards;
  if (sharded && !has(files, "model.safetensors"))
    for (const std::string& f : files)
      if (is_weight_shard(f)) shards.push_back(f);
  std::sort(shards.begin(), shards.end());
  out.insert(out.end(), shards.begin(), shards.end());
  return out;
}

FileMeta fetch_file_meta(const HubClient& hub, const std::string& repo_id,
                         const std::string& commit, const std::string& file) {
  std::string url =
      hub.endpoint + "/" + repo_id + "/resolve/" + commit + "/" + url_escape(file, true);
  HttpResponse r = head(url, hub.options(hub.etag_timeout_s));
  for (int hops = 0; hops < 5 && r.status >= 300 && r.status < 400 &&
                     r.header("x-linked-etag").empty() && r.header("location").starts_with("/");
       ++hops) {  // a renamed repo: a relative redirect to its new name
    url = hub.endpoint + r.header("location");
    r = head(url, hub.options(hub.etag_timeout_s));
  }
  if (r.status >= 400)
    throw DownloadError("the hub answered HTTP " + std::to_string(r.status) + " for " + file +
                        " of " + repo_id);
  FileMeta m;
  m.lfs = !r.header("x-linked-etag").empty();
  m.etag = strip_etag(m.lfs ? r.header("x-linked-etag") : r.header("etag"));
  const std::string size = m.lfs ? r.header("x-linked-size") : r.header("content-length");
  m.url = url;
  if (m.etag.empty() || size.empty() || size.find_first_not_of("0123456789") != std::string::npos)
    throw DownloadError("the hub sent no etag or size for " + file + " of " + repo_id);
  m.size = std::stoull(size);
  if (m.etag.find('/') != std::string::npos || m.etag == "." || m.etag == "..")
    throw DownloadError("the hub's etag for " + file + " is not a file name: " + m.etag);
  return m;
}

}  // namespace tinylm::download
