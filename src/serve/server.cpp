#include "serve/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "serve/api_error.h"
#include "serve/completion_routes.h"
#include "serve/http_json.h"
#include "serve/model_routes.h"
#include "serve/openai_request.h"
#include "serve/playground_html.h"  // generated from playground.html
#include "serve/teaching_routes.h"
#include "util/error.h"

namespace tinylm::serve {

namespace {

using nlohmann::json;

void send_error(httplib::Response& res, const ApiError& e) {
  send_json(res, e.body(), e.status);
}

// Compares without an early exit, so that the time taken does not tell how much of a
// guessed key was right.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ b[i % (b.empty() ? 1 : b.size())];
  return diff == 0 && !b.empty();
}

// The routes and the methods each answers: /metrics labels requests by these alone (any
// other path is "other"), and a known route asked with another method gets 405.
const std::map<std::string, std::string>& known_routes() {
  static const std::map<std::string, std::string> routes = {
      {"/", "GET"},
      {"/favicon.ico", "GET"},
      {"/health", "GET"},
      {"/v1/models", "GET"},
      {"/v1/models/{id}", "GET"},
      {"/props", "GET"},
      {"/metrics", "GET"},
      {"/tokenize", "POST"},
      {"/detokenize", "POST"},
      {"/apply-template", "POST"},
      {"/tinylm/next-token", "POST"},
      {"/tinylm/attention", "POST"},
      {"/v1/completions", "POST"},
      {"/v1/chat/completions", "POST"},
  };
  return routes;
}

// The route a path names ("" for none).
std::string route_of(const std::string& path) {
  const std::string prefix = "/v1/models/";
  if (path.size() > prefix.size() && path.rfind(prefix, 0) == 0) return "/v1/models/{id}";
  return known_routes().count(path) ? path : "";
}

bool is_public(const std::string& path) {
  return path == "/" || path == "/favicon.ico" || path == "/health" || path == "/v1/models" ||
         path.rfind("/v1/models/", 0) == 0;
}

std::string status_text(int status) {
  switch (status) {
    case 404:
      return "not found";
    case 405:
      return "method not allowed";
    case 413:
      return "the request body is too large";
    default:
      return "the request could not be served";
  }
}

// What is refused before the body is read: a path that is no route (404), a route asked
// with another method (405 with Allow), and a body whose size no Content-Length tells in
// advance, chunked (411) or compressed (415): httplib holds --max-body-bytes against the
// Content-Length alone, and would read such a body whole, whatever its size.
bool refused_before_the_body(const httplib::Request& req, httplib::Response& res) {
  const std::string route = route_of(req.path);
  if (route.empty()) {
    send_error(res, ApiError(404, status_text(404)));
    return true;
  }
  const std::string& allow = known_routes().at(route);
  if (req.method != allow && !(allow == "GET" && req.method == "HEAD")) {
    res.set_header("Allow", allow);
    send_error(res, ApiError(405, status_text(405)));
    return true;
  }
  if (req.has_header("Transfer-Encoding")) {
    send_error(res, ApiError(411,
                             "send the body with a Content-Length: chunked request bodies "
                             "are not accepted"));
    return true;
  }
  const std::string encoding = req.get_header_value("Content-Encoding");
  if (!encoding.empty() && encoding != "identity") {
    send_error(res, ApiError(415, "compressed request bodies (Content-Encoding: " + encoding +
                                      ") are not accepted"));
    return true;
  }
  return false;
}

// GET /: the playground page, always fetched fresh; its script talks to this server
// (or another one the page is pointed at: connect-src *).
void send_playground(httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                 "script-src 'self' 'unsafe-inline'; connect-src *");
  res.set_content(kPlaygroundHtml, "text/html; charset=utf-8");
}

// The listening socket's options, instead of httplib::default_socket_options: cpp-httplib
// 0.11 sets SO_REUSEPORT on Linux, which lets a second server bind the same port and
// share its connections at random. SO_REUSEADDR alone still lets a restarted server bind
// while the old one's connections sit in TIME_WAIT, and refuses a port another listens on.
void allow_rebinding_only(socket_t sock) {
  const int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

}  // namespace

int http_threads_for(const EngineOptions& engine) {
  constexpr int64_t kQuickRoutes = 4, kMost = 1024;
  return static_cast<int>(std::min(engine.parallel + engine.queue_limit + kQuickRoutes, kMost));
}

Server::Server(ServerOptions options)
    : options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
  http_->set_payload_max_length(options_.max_body_bytes);
  const size_t threads = static_cast<size_t>(std::max(1, options_.http_threads));
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_socket_options([this](socket_t sock) {
    allow_rebinding_only(sock);
    listen_socket_ = sock;
  });
  hooks();
  routes();
}

Server::~Server() = default;

int Server::bind() {
  const int port = options_.port == 0
                       ? http_->bind_to_any_port(options_.host)
                       : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  require(port > 0, "cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                        " (in use, or not an address of this machine)");
  // Debian's compiled cpp-httplib listens with a queue of 5 connections not yet accepted;
  // more clients connecting at once than that overflow it (the kernel drops their
  // handshakes, and a client can wait a minute for an answer). Listening again on the
  // same socket sets a deeper queue (Linux: the system's limit, somaxconn).
  if (listen_socket_ >= 0) ::listen(listen_socket_, SOMAXCONN);
  return port;
}

void Server::run() {
  running_ = true;
  if (!stop_requested_) http_->listen_after_bind();
  running_ = false;
}

void Server::ready(const ServedModel& model, Engine& engine) {
  model_ = model;
  engine_ = &engine;
  ready_ = true;
}

bool Server::wait_stopped(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running_) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

void Server::stop() {
  stop_requested_ = true;
  // httplib's stop() only stops a server that listens: wait until run() has started
  // listening (or has seen the request and returned).
  while (running_ && !http_->is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  http_->stop();
}

bool Server::authorized(const httplib::Request& req) const {
  if (options_.api_key.empty() || req.method == "OPTIONS" || is_public(req.path)) return true;
  // "Bearer KEY"; the scheme's name is case-insensitive (RFC 9110, section 11.1).
  const std::string header = req.get_header_value("Authorization");
  const std::string bearer = "bearer ";
  if (header.size() < bearer.size()) return false;
  for (size_t i = 0; i < bearer.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != bearer[i]) return false;
  return same_secret(header.substr(bearer.size()), options_.api_key);
}

void Server::add_cors(const httplib::Request& req, httplib::Response& res) const {
  if (options_.cors_origin.empty()) return;
  const std::string origin = req.get_header_value("Origin");
  if (options_.cors_origin != "*" && origin != options_.cors_origin) return;
  res.set_header("Access-Control-Allow-Origin", options_.cors_origin);
  res.set_header("Vary", "Origin");
  if (req.method == "OPTIONS") {
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    // the headers the browser asks to send (the openai client adds its X-Stainless-*
    // ones), as llama.cpp's server answers; the origin is already the allowed one
    const std::string asked = req.get_header_value("Access-Control-Request-Headers");
    res.set_header("Access-Control-Allow-Headers",
                   asked.empty() ? "Authorization, Content-Type" : asked);
    res.set_header("Access-Control-Max-Age", "600");
  }
}

void Server::count(const httplib::Request& req, const httplib::Response& res) {
  std::string route = route_of(req.path);
  if (route.empty()) route = "other";  // a client's path is never a label
  std::lock_guard lock(count_mutex_);
  ++requests_[{route, res.status}];
}

// What every request passes through: CORS and OPTIONS, the API key, the loading state,
// and the path, method and body framing before routing; the error bodies (413, and any
// other status httplib answers itself) and exceptions after;
// the count for /metrics once answered.
void Server::hooks() {
  httplib::Server& s = *http_;
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    add_cors(req, res);
    if (req.method == "OPTIONS") {
      res.status = 204;
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!authorized(req)) {
      send_error(res, ApiError(401, "Invalid or missing API key (send 'Authorization: Bearer KEY')",
                               "invalid_request_error", "", "invalid_api_key"));
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!ready_ && req.path != "/health") {
      send_error(res, ApiError(503, "Loading model", "unavailable_error"));
      return httplib::Server::HandlerResponse::Handled;
    }
    return refused_before_the_body(req, res) ? httplib::Server::HandlerResponse::Handled
                                             : httplib::Server::HandlerResponse::Unhandled;
  });
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) send_error(res, ApiError(res.status, status_text(res.status)));
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                             std::exception_ptr ep) {
    try {
      std::rethrow_exception(ep);
    } catch (const ApiError& e) {
      send_error(res, e);
    } catch (const InputError& e) {
      send_error(res, ApiError(400, e.what()));
    } catch (const std::exception& e) {
      send_error(res, ApiError(500, std::string("internal error: ") + e.what(), "server_error"));
    }
  });
  s.set_logger(
      [this](const httplib::Request& req, const httplib::Response& res) { count(req, res); });
}

// The routes of known_routes(), each to its handler.
void Server::routes() {
  using Req = httplib::Request;
  using Res = httplib::Response;
  httplib::Server& s = *http_;
  s.Get("/", [](const Req&, Res& res) { send_playground(res); });
  s.Get("/favicon.ico", [](const Req&, Res& res) { res.status = 204; });  // no icon
  s.Get("/health", [this](const Req&, Res& res) {
    if (ready_)
      send_json(res, {{"status", "ok"}});
    else
      send_error(res, ApiError(503, "Loading model", "unavailable_error"));
  });
  s.Get("/v1/models", [this](const Req&, Res& res) {
    send_json(res, {{"object", "list"}, {"data", json::array({model_json(model_)})}});
  });
  s.Get(R"(/v1/models/(.+))", [this](const Req& req, Res& res) {
    if (req.matches[1] != model_.id)
      throw ApiError(404, "The model '" + std::string(req.matches[1]) + "' does not exist",
                     "invalid_request_error", "model", "model_not_found");
    send_json(res, model_json(model_));
  });
  s.Get("/props", [this](const Req&, Res& res) { send_json(res, props_json(model_, *engine_)); });
  s.Get("/metrics",
        [this](const Req&, Res& res) { res.set_content(metrics(), "text/plain; version=0.0.4"); });
  s.Post("/tokenize", [this](const Req& req, Res& res) { answer_tokenize(model_, req, res); });
  s.Post("/detokenize", [this](const Req& req, Res& res) { answer_detokenize(model_, req, res); });
  s.Post("/apply-template",
         [this](const Req& req, Res& res) { answer_apply_template(model_, req, res); });
  s.Post("/tinylm/next-token",
         [this](const Req& req, Res& res) { answer_next_token(model_, *engine_, req, res); });
  s.Post("/tinylm/attention",
         [this](const Req& req, Res& res) { answer_attention(model_, *engine_, req, res); });
  for (auto [path, api] :
       {std::pair{"/v1/completions", Api::kCompletions}, {"/v1/chat/completions", Api::kChat}}) {
    s.Post(path, [this, api](const Req& req, Res& res) {
      answer_completion(api, model_, *engine_, req, res, options_.request_timeout_seconds);
    });
  }
}

std::string Server::metrics() const {
  const EngineStats st = engine_->stats();
  std::ostringstream out;
  const auto metric = [&](const char* name, const char* type, const char* help, auto value) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n'
        << name << ' ' << value << '\n';
  };
  out << "# HELP tinylm_requests_total HTTP requests answered, by route and status\n"
         "# TYPE tinylm_requests_total counter\n";
  {
    std::lock_guard lock(count_mutex_);
    for (const auto& [key, n] : requests_)
      out << "tinylm_requests_total{route=\"" << key.first << "\",status=\"" << key.second << "\"} "
          << n << '\n';
  }
  metric("tinylm_prompt_tokens_total", "counter", "prompt tokens prefilled", st.prompt_tokens);
  metric("tinylm_generated_tokens_total", "counter", "tokens generated", st.generated_tokens);
  metric("tinylm_generations_total", "counter", "generations finished", st.requests_done);
  metric("tinylm_generations_cancelled_total", "counter",
         "generations cancelled (client gone, timeout)", st.cancelled);
  metric("tinylm_decode_steps_total", "counter", "batched decoding steps", st.decode_steps);
  metric("tinylm_slots", "gauge", "slots (--parallel)", st.slots);
  metric("tinylm_slots_busy", "gauge", "slots generating now", st.busy);
  metric("tinylm_queue_length", "gauge", "generations waiting for a slot", st.queued);
  metric("tinylm_time_to_first_token_seconds_sum", "counter",
         "seconds from taking a slot to the first token, summed", st.first_token_seconds_sum);
  metric("tinylm_time_to_first_token_seconds_count", "counter", "generations timed",
         st.requests_done);
  metric(
      "tinylm_tokens_per_second", "gauge", "generated tokens per second of decoding",
      st.decode_seconds > 0 ? static_cast<double>(st.generated_tokens) / st.decode_seconds : 0.0);
  return out.str();
}

}  // namespace tinylm::serve
