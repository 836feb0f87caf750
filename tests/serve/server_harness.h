// A server on 127.0.0.1 (a free port) in the test's process, serving a model opened from
// a source as `tinylm serve` opens it, with httplib's client for raw HTTP, and the
// server-sent events of a stream split into their JSON payloads.
#pragma once
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "open/open_model.h"
#include "serve/engine.h"
#include "serve/serve.h"
#include "serve/server.h"
#include "util/source_dir.h"

namespace tinylm::serve::testing {

inline const std::string kTinyGpt2 =
    std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-tiny";

class TestServer {
 public:
  explicit TestServer(ServerOptions server = {}, EngineOptions engine = {},
                      const std::string& source = kTinyGpt2)
      : TestServer(server, engine, open_model(source)) {}
  TestServer(ServerOptions server, EngineOptions engine, OpenedModel loaded)
      : loaded_(std::move(loaded)) {
    server.port = 0;
    server.http_threads = http_threads_for(engine);         // as serve.cpp sizes it
    decoder_ = prepare_for_serving(loaded_, std::nullopt);  // as serve.cpp loads it
    engine_ = std::make_unique<Engine>(*decoder_, *loaded_.tokenizer, engine);
    server_ = std::make_unique<Server>(server);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->run(); });
    ServedModel served;
    served.id = "tiny";
    served.source = loaded_.title();
    served.path = loaded_.source.path;
    served.model = loaded_.lm.get();
    served.tokenizer = loaded_.tokenizer.get();
    served.chat_template = chat_template_for(loaded_);  // as serve.cpp chooses it
    server_->ready(served, *engine_);
  }
  ~TestServer() {
    server_->stop();
    thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60);
    return c;
  }
  int port() const { return port_; }
  Engine& engine() { return *engine_; }
  OpenedModel& model() { return loaded_; }

 private:
  OpenedModel loaded_;
  std::unique_ptr<DecodeContext> decoder_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
};

// The payloads of "data: ..." events; the last one is "[DONE]" in a complete stream.
inline std::vector<std::string> sse_payloads(const std::string& body) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < body.size()) {
    const size_t end = body.find("\n\n", at);
    if (end == std::string::npos) break;
    const std::string event = body.substr(at, end - at);
    if (event.rfind("data: ", 0) == 0) out.push_back(event.substr(6));
    at = end + 2;
  }
  return out;
}

inline nlohmann::json json_of(const httplib::Result& r) {
  return nlohmann::json::parse(r->body);
}

inline httplib::Result post(httplib::Client& c, const std::string& path,
                            const nlohmann::json& body) {
  return c.Post(path.c_str(), body.dump(), "application/json");
}

// r is an error of the given status in OpenAI's shape ({"error": {message, type, param,
// code}}), naming param when one is given.
inline void expect_error(const httplib::Result& r, int status, const std::string& param = "") {
  ASSERT_TRUE(r) << "no answer";
  EXPECT_EQ(r->status, status) << r->body;
  const nlohmann::json j = nlohmann::json::parse(r->body);
  ASSERT_TRUE(j.contains("error")) << r->body;
  EXPECT_TRUE(j["error"]["message"].is_string());
  EXPECT_TRUE(j["error"]["type"].is_string());
  EXPECT_TRUE(j["error"].contains("param") && j["error"].contains("code"));
  if (!param.empty()) {
    EXPECT_EQ(j["error"]["param"], param) << r->body;
  }
}

// The value of the first `name value` line of a /metrics text ("" when there is none).
inline std::string metric_in(const std::string& metrics, const std::string& name) {
  const std::string body = "\n" + metrics;
  const size_t at = body.find("\n" + name + " ");
  return at == std::string::npos
             ? ""
             : body.substr(at + name.size() + 2, body.find('\n', at + 1) - at - name.size() - 2);
}

// Polls /metrics until name reads value (a bounded number of times; false at once when
// /metrics does not answer).
inline bool wait_for_metric(httplib::Client& c, const std::string& name, const std::string& value) {
  for (int i = 0; i < 4000; ++i) {
    const auto r = c.Get("/metrics");
    if (!r) return false;
    if (metric_in(r->body, name) == value) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// gpt2-tiny's tokenizer with a random model of another shape.
inline OpenedModel random_gpt2(int64_t block_size, int64_t d_model, int64_t n_layer) {
  OpenedModel m = open_model(kTinyGpt2);
  GPTConfig c = m.lm->config();
  c.block_size = block_size, c.d_model = d_model, c.n_layer = n_layer, c.n_head = 4;
  m.lm = std::make_unique<GPT>(c);
  Rng rng(1);
  m.lm->init(rng);
  return m;
}

// Slow enough (context 1024, 4 layers of 128) that a long generation is still running
// when a test acts on it.
inline OpenedModel slow_model() {
  return random_gpt2(1024, 128, 4);
}

// A stream of up to 1000 tokens that the client reads until `release`, then leaves (the
// server cancels it); returns the answer's status.
inline int stream_until_released(const TestServer& server, const std::atomic<bool>& release) {
  auto own = server.client();
  int status = 0;
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  req.body = nlohmann::json(
                 {{"prompt", "a"}, {"max_tokens", 1000}, {"stream", true}, {"ignore_eos", true}})
                 .dump();
  req.set_header("Content-Type", "application/json");
  req.response_handler = [&status](const httplib::Response& r) {
    status = r.status;
    return true;
  };
  req.content_receiver = [&release](const char*, size_t, uint64_t, uint64_t) {
    return !release.load();
  };
  own.send(req);
  return status;
}

}  // namespace tinylm::serve::testing
