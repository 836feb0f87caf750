// A stand-in for the Hugging Face hub on 127.0.0.1 (a free port), in the test's process,
// answering as the hub does for downloads:
//   GET  /api/models/{repo}/revision/{rev}   {"sha": commit, "siblings": [{"rfilename"}]}
//   HEAD/GET /{repo}/resolve/{rev}/{file}    small files: 200 with ETag and the bytes;
//        large (LFS) files: 302 to /cdn/{sha256} with X-Linked-Etag (the sha256),
//        X-Linked-Size and X-Repo-Commit
//   GET  /cdn/{sha256}                       the bytes, Range requests honoured (and
//                                            any file put there with add_static)
// with faults to order: the connection dropped halfway through a file (once), bytes that
// do not match the published sha256, a status for the API, an API that answers too late.
#pragma once
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "download/sha256.h"

namespace tinylm::testing {

struct FakeFile {
  std::string bytes;
  bool lfs = false;
};

struct FakeRepo {
  std::string commit;
  std::map<std::string, FakeFile> files;
};

class FakeHub {
 public:
  FakeHub() {
    server_.Get(R"(/api/models/(.+)/revision/([^/]+))",
                [this](const httplib::Request& q, httplib::Response& r) { api(q, r); });
    server_.Get(R"(/(.+)/resolve/([^/]+)/(.+))",
                [this](const httplib::Request& q, httplib::Response& r) { resolve(q, r); });
    server_.Get(R"(/cdn/(.+))",
                [this](const httplib::Request& q, httplib::Response& r) { cdn(q, r); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeHub() {
    server_.stop();
    thread_.join();
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void add(const std::string& repo_id, FakeRepo repo) {
    std::lock_guard lock(mutex_);
    repos_[repo_id] = std::move(repo);
  }
  // A file at ENDPOINT/cdn/<path>, as a plain file store serves it (OpenAI's storage).
  void add_static(const std::string& path, const std::string& bytes) {
    std::lock_guard lock(mutex_);
    cdn_[path] = bytes;
  }
  // Faults, each for the requests that follow.
  std::atomic<bool> drop_next_cdn_halfway{false};  // once
  std::atomic<bool> corrupt_cdn{false};            // flip a byte of every LFS body
  std::atomic<int> api_status{0};                  // answer the API with this status
  std::atomic<int> api_delay_ms{0};                // answer the API this late
  std::string required_token;                      // a private repo: the API wants this
  // What was asked.
  std::atomic<int> cdn_requests{0}, api_requests{0};
  std::atomic<uint64_t> cdn_bytes_sent{0};

 private:
  void api(const httplib::Request& q, httplib::Response& r) {
    ++api_requests;
    if (api_delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(api_delay_ms));
    if (api_status) {
      r.status = api_status;
      r.set_content(R"({"error":"Internal Error"})", "application/json");
      return;
    }
    if (!required_token.empty() &&
        q.get_header_value("Authorization") != "Bearer " + required_token) {
      r.status = 401;  // the hub's answer for a private repo, or an unknown one
      r.set_content(R"({"error":"Invalid username or password."})", "application/json");
      return;
    }
    std::lock_guard lock(mutex_);
    const auto it = repos_.find(q.matches[1]);
    if (it == repos_.end() || (q.matches[2] != "main" && q.matches[2] != it->second.commit)) {
      r.status = 404;
      r.set_content(R"({"error":"Repository not found"})", "application/json");
      return;
    }
    nlohmann::json siblings = nlohmann::json::array();
    for (const auto& [name, file] : it->second.files) siblings.push_back({{"rfilename", name}});
    r.set_content(nlohmann::json({{"sha", it->second.commit}, {"siblings", siblings}}).dump(),
                  "application/json");
  }

  void resolve(const httplib::Request& q, httplib::Response& r) {
    std::lock_guard lock(mutex_);
    const auto repo = repos_.find(q.matches[1]);
    if (repo == repos_.end()) return void(r.status = 404);
    const auto file = repo->second.files.find(q.matches[3]);
    if (file == repo->second.files.end()) return void(r.status = 404);
    r.set_header("X-Repo-Commit", repo->second.commit);
    if (!file->second.lfs) {
      r.set_header("ETag", "\"" + download::sha256_hex(file->second.bytes).substr(0, 40) + "\"");
      r.set_content(file->second.bytes, "application/octet-stream");
      return;
    }
    const std::string sha = download::sha256_hex(file->second.bytes);
    cdn_[sha] = file->second.bytes;
    r.status = 302;
    r.set_header("Location", "/cdn/" + sha);
    r.set_header("X-Linked-Etag", "\"" + sha + "\"");
    r.set_header("X-Linked-Size", std::to_string(file->second.bytes.size()));
  }

  void cdn(const httplib::Request& q, httplib::Response& r) {
    const bool head = q.method == "HEAD";  // answered by this handler too, without a body
    if (!head) ++cdn_requests;
    std::string bytes;
    {
      std::lock_guard lock(mutex_);
      const auto it = cdn_.find(q.matches[1]);
      if (it == cdn_.end()) return void(r.status = 404);
      bytes = it->second;
    }
    if (corrupt_cdn && !bytes.empty()) bytes[bytes.size() / 3] ^= 0x20;
    const bool drop = !head && drop_next_cdn_halfway.exchange(false);
    const size_t size = bytes.size();
    r.set_content_provider(
        size, "application/octet-stream",
        [this, bytes, drop, size](size_t offset, size_t length, httplib::DataSink& sink) {
          const size_t stop = drop ? size / 2 : size;
          if (offset >= stop) return false;  // the connection is dropped here
          const size_t n = std::min({length, stop - offset, size_t{4096}});
          sink.write(bytes.data() + offset, n);
          cdn_bytes_sent += n;
          return true;
        });
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::map<std::string, FakeRepo> repos_;
  std::map<std::string, std::string> cdn_;  // sha256 (or a static path) -> bytes
};

}  // namespace tinylm::testing
