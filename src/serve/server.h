// `tinylm serve`'s HTTP side (cpp-httplib): the routes of the OpenAI API and llama.cpp's
// server that tinylm answers, the API key, CORS, limits, and the errors every route
// answers with ({"error": {...}}, api_error.h). Handler threads parse, check and queue
// work on the engine; only the engine's loop touches the model.
//   GET  /                           the playground (playground.html, embedded)
//   GET  /health                     200 {"status":"ok"} (503 while the model loads)
//   GET  /v1/models, /v1/models/{id}
//   GET  /props, /metrics             (shape and defaults; Prometheus text)
//   POST /v1/completions, /v1/chat/completions   (completion_routes.h)
//   POST /tokenize, /detokenize       (llama.cpp's shapes)
//   POST /tinylm/next-token, /tinylm/attention   (what the playground draws: teaching_routes.h)
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "serve/chat_template.h"
#include "serve/engine.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace tinylm::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;          // 0: any free port (tests)
  std::string api_key;      // "": no key needed
  std::string cors_origin;  // "": no CORS headers
  size_t max_body_bytes = 1 << 20;
  int request_timeout_seconds = 600;  // a request still running then is cancelled
  // Connections handled at once (httplib's thread pool; each request holds one thread
  // until it is answered, a stream until its end). Beyond it, connections wait unread.
  // serve() and the tests size it with http_threads_for(the engine's options).
  int http_threads = 8;
};

// Threads enough for every request the engine can hold (running and queued), so that a
// request past the queue gets its 503 at once, plus a few for /health, /metrics and the
// other quick routes while the slots are busy.
int http_threads_for(const EngineOptions& engine);

// The model a server answers with, once loaded.
struct ServedModel {
  std::string id;      // what /v1/models lists and requests name (--alias, else the source)
  std::string source;  // described: "PATH (a Hugging Face GPT-2 folder)"
  std::string path;    // the folder, file or preset name as given (/props model_path)
  const GPT* model = nullptr;
  const Tokenizer* tokenizer = nullptr;
  ChatTemplate chat_template;
  int64_t created = 0;  // unix seconds
};

class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();
  // Binds the socket; returns the port (the chosen one for port 0). InputError when the
  // address cannot be bound.
  int bind();
  // Serves until stop(); run it on its own thread. /health says 503 until ready().
  void run();
  // The model is loaded: every route answers from now on.
  void ready(const ServedModel& model, Engine& engine);
  // Stops accepting; requests in flight finish (the engine keeps running). Safe before,
  // during and after run() starts.
  void stop();
  // Whether run() has returned within timeout (after stop(): the requests in flight done).
  bool wait_stopped(std::chrono::milliseconds timeout) const;

 private:
  void hooks();
  void routes();
  bool authorized(const httplib::Request& req) const;
  void add_cors(const httplib::Request& req, httplib::Response& res) const;
  void count(const httplib::Request& req, const httplib::Response& res);
  std::string metrics() const;

  ServerOptions options_;
  std::unique_ptr<httplib::Server> http_;
  int listen_socket_ = -1;  // httplib's listening socket, seen as it is made
  std::atomic<bool> ready_{false};
  std::atomic<bool> running_{false}, stop_requested_{false};  // run() and stop() meeting
  ServedModel model_;
  Engine* engine_ = nullptr;
  mutable std::mutex count_mutex_;
  std::map<std::pair<std::string, int>, int64_t> requests_;  // (route, status) -> count
};

}  // namespace tinylm::serve
