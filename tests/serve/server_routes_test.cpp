// What the HTTP side answers beyond the OpenAI shapes, over real sockets: a known route
// asked with the wrong method, bodies of untold size, a refused request that queues
// nothing, the headers a browser's preflight asks for, /metrics labels a client cannot
// choose, the bearer scheme in any case, typed /tokenize fields, the playground's
// distribution after the samplers, a client that hangs up before a non-streamed answer,
// and who may bind a server's port.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "serve/server_harness.h"
#include "util/error.h"

namespace tinylm::serve {
namespace {

using nlohmann::json;
using testing::expect_error;
using testing::json_of;
using testing::post;
using testing::TestServer;

TEST(ServerRoutes, AKnownRouteAskedWithAnotherMethodIs405) {
  TestServer server;
  auto c = server.client();
  const auto get = c.Get("/v1/completions");
  expect_error(get, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  const auto put = c.Put("/health", "{}", "application/json");
  expect_error(put, 405);
  EXPECT_EQ(put->get_header_value("Allow"), "GET");
  expect_error(c.Get("/v1/nothing-here"), 404);
  expect_error(c.Get("/v1/models/not-this-one"), 404, "model");
}

// The status line of the answer to `request`, written as it is on a new connection: for
// requests httplib's client cannot send (no Content-Length, a chunked body, gzip).
std::string raw_status_line(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
    char buf[512];
    ssize_t n = 0;
    while (reply.find("\r\n") == std::string::npos && (n = ::recv(fd, buf, sizeof buf, 0)) > 0)
      reply.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return reply.substr(0, reply.find("\r\n"));
}

// httplib holds the body limit against the Content-Length alone: a chunked or compressed
// body would be read whole (a 100 MB chunked body, a gzip bomb). Such bodies are refused
// before a byte of them is read, and a path or method that is wrong is answered before
// the body too (a POST without one included).
TEST(ServerRoutes, ABodyOfUntoldSizeIsRefusedUnread) {
  TestServer server;
  const auto status = [&](const std::string& head) {
    return raw_status_line(server.port(), head + "Host: 127.0.0.1\r\n\r\n");
  };
  EXPECT_EQ(status("POST /v1/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"),
            "HTTP/1.1 411 Length Required");
  EXPECT_EQ(status("POST /tokenize HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\n"),
            "HTTP/1.1 415 Unsupported Media Type");
  EXPECT_EQ(status("POST /v1/models HTTP/1.1\r\n"), "HTTP/1.1 405 Method Not Allowed");
  EXPECT_EQ(status("POST /made/up HTTP/1.1\r\n"), "HTTP/1.1 404 Not Found");
  auto c = server.client();
  expect_error(c.Post("/tokenize", {{"Content-Encoding", "gzip"}}, "xx", "application/json"), 415);
  EXPECT_EQ(post(c, "/tokenize", {{"content", "Hi"}})->status, 200);
  EXPECT_EQ(c.Post("/tokenize", {{"Content-Encoding", "identity"}}, R"({"content": "Hi"})",
                   "application/json")
                ->status,
            200);
}

// A request refused for its second prompt queues nothing for its first: with one slot,
// the next request's generation is the only one the engine ever ran.
TEST(ServerRoutes, ARefusedRequestQueuesNothing) {
  TestServer server({}, {.parallel = 1});
  auto c = server.client();
  const json bad = {
      {"prompt", {{15496}, {99999}}}, {"max_tokens", 8}, {"n", 2}, {"echo", true}, {"logprobs", 0}};
  expect_error(post(c, "/v1/completions", bad), 400, "prompt");
  EXPECT_EQ(post(c, "/v1/completions", {{"prompt", "Hi"}, {"max_tokens", 1}})->status, 200);
  const std::string metrics = c.Get("/metrics")->body;
  EXPECT_EQ(testing::metric_in(metrics, "tinylm_generations_total"), "1") << metrics;
  EXPECT_EQ(testing::metric_in(metrics, "tinylm_generations_cancelled_total"), "0") << metrics;
}

// A browser's preflight for the official openai client asks to send its X-Stainless-*
// headers too: they are allowed, as llama.cpp's server allows what is asked.
TEST(ServerRoutes, APreflightAllowsTheHeadersItAsksFor) {
  ServerOptions o;
  o.cors_origin = "*";
  TestServer server(o);
  auto c = server.client();
  const std::string asked = "authorization,content-type,x-stainless-os,x-stainless-retry-count";
  const auto pre = c.Options("/v1/completions", {{"Origin", "http://127.0.0.1:3000"},
                                                 {"Access-Control-Request-Method", "POST"},
                                                 {"Access-Control-Request-Headers", asked}});
  ASSERT_TRUE(pre);
  EXPECT_EQ(pre->status, 204);
  EXPECT_EQ(pre->get_header_value("Access-Control-Allow-Headers"), asked);
}

// Paths a client makes up are counted as "other": a path can neither add lines to the
// Prometheus text nor grow the server's table of labels.
TEST(ServerRoutes, MetricsLabelsAreTheServersRoutesOnly) {
  ServerOptions o;
  o.api_key = "k";
  TestServer server(o);
  auto c = server.client();
  c.set_bearer_token_auth("k");
  const std::string injected = "/x\"} 1\ninjected_metric 42\n#";
  ASSERT_TRUE(c.Options(injected.c_str()));  // sent with the newlines and space escaped
  auto stranger = server.client();
  ASSERT_TRUE(stranger.Get("/made/up/path"));  // 401 without the key
  ASSERT_TRUE(c.Get("/health"));
  // A request is counted once its answer is sent, so the count may trail the client.
  for (const char* counted : {"tinylm_requests_total{route=\"other\",status=\"204\"}",
                              "tinylm_requests_total{route=\"other\",status=\"401\"}",
                              "tinylm_requests_total{route=\"/health\",status=\"200\"}"})
    EXPECT_TRUE(testing::wait_for_metric(c, counted, "1")) << counted;
  const std::string metrics = c.Get("/metrics")->body;
  EXPECT_EQ(metrics.find("injected_metric"), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("/made/up"), std::string::npos) << metrics;
}

TEST(ServerRoutes, TheBearerSchemeIsCaseInsensitive) {
  ServerOptions o;
  o.api_key = "s3cret";
  TestServer server(o);
  auto c = server.client();
  for (const char* scheme : {"bearer", "BEARER", "Bearer"}) {
    const auto r = c.Get("/metrics", {{"Authorization", std::string(scheme) + " s3cret"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << scheme;
  }
  expect_error(c.Get("/metrics", {{"Authorization", "Basic s3cret"}}), 401);
}

TEST(ServerRoutes, TokenizeChecksWithPieces) {
  TestServer server;
  auto c = server.client();
  expect_error(post(c, "/tokenize", {{"content", "Hi"}, {"with_pieces", "yes"}}), 400,
               "with_pieces");
  expect_error(post(c, "/tokenize", {{"content", "Hi"}, {"with_pieces", 1}}), 400, "with_pieces");
  EXPECT_EQ(post(c, "/tokenize", {{"content", "Hi"}, {"with_pieces", false}})->status, 200);
}

// With no top-k or top-p every token stays a candidate: "after" lists the most likely of
// them (temperature 1: the same order and shares as "before").
TEST(ServerRoutes, NextTokenAfterListsTheMostLikelyWithoutFilters) {
  TestServer server;
  auto c = server.client();
  const json r = json_of(post(c, "/tinylm/next-token", {{"prompt", "Hello there"}, {"top", 5}}));
  ASSERT_EQ(r["after"].size(), 5u);
  EXPECT_EQ(r["candidates"], server.model().lm->config().vocab_size);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r["after"][i]["id"], r["before"][i]["id"]) << i;
    EXPECT_NEAR(r["after"][i]["prob"].get<double>(), r["before"][i]["prob"].get<double>(), 1e-6);
  }
}

// A client that gives up on a non-streamed answer (its read times out and it closes the
// connection) cancels its job, as a stream's client does. The one slot is held by a
// stream until the test lets it go, so the request waits in the queue whatever the
// machine's speed: cancelled, it is dropped when the slot frees (two cancelled, the
// stream and it); not cancelled, it would take the slot for 1000 tokens.
TEST(ServerRoutes, AClientThatHangsUpBeforeANonStreamedAnswerCancelsIt) {
  TestServer server({}, {.parallel = 1}, testing::slow_model());
  auto c = server.client();
  std::atomic<bool> release{false};
  auto running = std::async(std::launch::async,
                            [&] { return testing::stream_until_released(server, release); });
  ASSERT_TRUE(testing::wait_for_metric(c, "tinylm_slots_busy", "1"));
  {
    auto impatient = server.client();
    impatient.set_read_timeout(0, 300000);  // 0.3 s
    const auto r = post(impatient, "/v1/completions",
                        {{"prompt", "a"}, {"max_tokens", 1000}, {"ignore_eos", true}});
    EXPECT_FALSE(r);  // no answer in time: the client closes the connection
  }
  release = true;
  EXPECT_EQ(running.get(), 200);
  EXPECT_TRUE(testing::wait_for_metric(c, "tinylm_generations_cancelled_total", "2"));
  EXPECT_TRUE(testing::wait_for_metric(c, "tinylm_slots_busy", "0"));
  EXPECT_EQ(post(c, "/v1/completions", {{"prompt", "b"}, {"max_tokens", 2}})->status, 200);
}

// A second server on a port another one listens on must fail to bind (as llama.cpp's
// does), not share the port: with SO_REUSEPORT both listened and the kernel handed each
// connection to either of them at random.
TEST(ServerRoutes, ASecondServerOnAPortInUseFailsToBind) {
  TestServer first;
  ServerOptions same_port;
  same_port.port = first.port();
  Server second(same_port);
  try {
    second.bind();
    FAIL() << "a second server bound port " << first.port();  // and may take its requests
  } catch (const InputError& e) {
    const std::string said =
        "cannot listen on 127.0.0.1:" + std::to_string(first.port()) + " (in use";
    EXPECT_NE(std::string(e.what()).find(said), std::string::npos) << e.what();
  }
  auto c = first.client();
  const auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// A server restarted on its port binds at once, though the connections the old one
// closed wait in TIME_WAIT (SO_REUSEADDR).
TEST(ServerRoutes, ARestartedServerBindsItsPortAgain) {
  ServerOptions options;
  options.port = 0;
  auto old_server = std::make_unique<Server>(options);
  options.port = old_server->bind();
  std::thread serving([&] { old_server->run(); });
  {
    httplib::Client c("127.0.0.1", options.port);
    for (int i = 0; i < 3; ++i)  // closed by the server, which then holds TIME_WAIT
      EXPECT_TRUE(c.Get("/health", {{"Connection", "close"}}));
  }
  old_server->stop();
  serving.join();
  old_server.reset();
  Server restarted(options);
  int port = -1;
  EXPECT_NO_THROW(port = restarted.bind());
  EXPECT_EQ(port, options.port);
  std::thread closing([&] { restarted.run(); });  // httplib closes its socket when it stops
  restarted.stop();
  closing.join();
}

}  // namespace
}  // namespace tinylm::serve
