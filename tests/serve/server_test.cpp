// The server over real sockets on 127.0.0.1 (httplib's client): status codes, headers,
// the OpenAI shapes, server-sent events, errors, keys, CORS and limits; and that it keeps
// serving after each bad request.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>

#include "generate/generate.h"
#include "model/padded_vocab_folder.h"
#include "serve/server_harness.h"

namespace tinylm::serve {
namespace {

using nlohmann::json;
using testing::expect_error;
using testing::json_of;
using testing::post;
using testing::sse_payloads;
using testing::stream_until_released;
using testing::TestServer;
using testing::wait_for_metric;

// The text of a completions or chat stream, and its chunks.
struct Streamed {
  std::string text, finish_reason;
  std::vector<json> chunks;
  bool done = false;
};

Streamed read_stream(const httplib::Result& r) {
  Streamed s;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/event-stream");
  for (const std::string& p : sse_payloads(r->body)) {
    if (p == "[DONE]") {
      s.done = true;
      continue;
    }
    json chunk = json::parse(p);
    for (const json& c : chunk["choices"]) {
      if (c.contains("text")) s.text += c["text"].get<std::string>();
      if (c.contains("delta") && c["delta"].contains("content"))
        s.text += c["delta"]["content"].get<std::string>();
      if (!c["finish_reason"].is_null()) s.finish_reason = c["finish_reason"];
    }
    s.chunks.push_back(std::move(chunk));
  }
  return s;
}

TEST(Server, HealthModelsAndProps) {
  TestServer server;
  auto c = server.client();
  auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json_of(health), json({{"status", "ok"}}));
  const json models = json_of(c.Get("/v1/models"));
  EXPECT_EQ(models["object"], "list");
  EXPECT_EQ(models["data"][0]["id"], "tiny");
  EXPECT_EQ(models["data"][0]["object"], "model");
  EXPECT_EQ(json_of(c.Get("/v1/models/tiny"))["id"], "tiny");
  expect_error(c.Get("/v1/models/other"), 404, "model");
  const json props = json_of(c.Get("/props"));
  EXPECT_EQ(props["shape"]["vocab_size"], 50257);
  EXPECT_EQ(props["context"], 64);
  EXPECT_EQ(props["default_generation_settings"]["n_ctx"], 64);  // llama.cpp's names
  EXPECT_EQ(props["total_slots"], props["slots"]);
  EXPECT_EQ(props["model_path"], testing::kTinyGpt2);  // the path alone, as llama.cpp's
  EXPECT_EQ(props["tokenizer"], "gpt2");
  expect_error(c.Get("/nothing/here"), 404);
  expect_error(c.Get("/../../etc/passwd"), 404);
}

// Greedy completion == tinylm's own greedy generate, in OpenAI's shape.
TEST(Server, GreedyCompletionIsGenerateInOpenAiShape) {
  TestServer server;
  auto c = server.client();
  const json r = json_of(post(c, "/v1/completions",
                              {{"model", "tiny"},
                               {"prompt", "Hello, my name is"},
                               {"max_tokens", 12},
                               {"temperature", 0}}));
  EXPECT_EQ(r["object"], "text_completion");
  EXPECT_EQ(r["model"], "tiny");
  EXPECT_TRUE(r["id"].get<std::string>().rfind("cmpl-", 0) == 0);
  ASSERT_EQ(r["choices"].size(), 1u);
  const Tokenizer& tok = *server.model().tokenizer;
  GenerateOptions o;
  o.max_new_tokens = 12;
  o.sampling.greedy = true;
  Rng rng(1);
  const auto prompt = tok.encode("Hello, my name is");
  const auto ids = generate(*server.model().lm, prompt, o, rng);
  EXPECT_EQ(r["choices"][0]["text"], tok.decode(ids));
  EXPECT_EQ(r["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(r["usage"]["prompt_tokens"], prompt.size());
  EXPECT_EQ(r["usage"]["completion_tokens"], 12);
  EXPECT_EQ(r["usage"]["total_tokens"], prompt.size() + 12);
}

TEST(Server, StreamTextEqualsTheTextAnsweredAtOnce) {
  TestServer server({}, {.parallel = 3});
  auto c = server.client();
  for (const char* path : {"/v1/completions", "/v1/chat/completions"}) {
    const bool chat = std::string(path).find("chat") != std::string::npos;
    json body = {{"max_tokens", 24}, {"seed", 42}, {"temperature", 0.9}, {"top_k", 40}};
    if (chat)
      body["messages"] = {{{"role", "user"}, {"content", "Tell me a story"}}};
    else
      body["prompt"] = "Once upon a time";
    const json whole = json_of(post(c, path, body));
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
    const Streamed s = read_stream(post(c, path, body));
    const json& first = whole["choices"][0];
    EXPECT_EQ(s.text, chat ? first["message"]["content"] : first["text"]) << path;
    EXPECT_EQ(s.finish_reason, first["finish_reason"]);
    EXPECT_TRUE(s.done) << "no data: [DONE]";
    ASSERT_GE(s.chunks.size(), 2u);
    const json& usage_chunk = s.chunks.back();
    EXPECT_TRUE(usage_chunk["choices"].empty());
    EXPECT_EQ(usage_chunk["usage"], whole["usage"]);
    if (chat) {
      EXPECT_EQ(s.chunks[0]["object"], "chat.completion.chunk");
      EXPECT_EQ(s.chunks[0]["choices"][0]["delta"]["role"], "assistant");
      EXPECT_EQ(whole["object"], "chat.completion");
      EXPECT_EQ(first["message"]["role"], "assistant");
    }
  }
}

// The same seed gives the same text with 1 slot or 4, alone or among concurrent requests.
TEST(Server, SeedGivesTheSameTextWhateverElseRuns) {
  std::string alone;
  {
    TestServer server({}, {.parallel = 1});
    auto c = server.client();
    alone = json_of(
        post(c, "/v1/completions",
             {{"prompt", "The weather"}, {"max_tokens", 30}, {"seed", 7}}))["choices"][0]["text"];
  }
  TestServer server({}, {.parallel = 4});
  std::vector<std::future<std::string>> others;
  for (int i = 0; i < 6; ++i)
    others.push_back(std::async(std::launch::async, [&server, i] {
      auto c = server.client();
      return json_of(post(c, "/v1/completions",
                          {{"prompt", i % 2 ? "The weather" : "Something else entirely"},
                           {"max_tokens", 20 + i},
                           {"seed", 100 + i}}))["choices"][0]["text"]
          .get<std::string>();
    }));
  auto c = server.client();
  const std::string among = json_of(
      post(c, "/v1/completions",
           {{"prompt", "The weather"}, {"max_tokens", 30}, {"seed", 7}}))["choices"][0]["text"];
  for (auto& f : others) f.get();
  EXPECT_EQ(among, alone);
}

// A stop text that spans tokens ends the text before it, also when streamed.
TEST(Server, StopTextsAcrossTokensAreNeverShown) {
  TestServer server;
  auto c = server.client();
  json body = {{"prompt", "In the beginning"}, {"max_tokens", 30}, {"temperature", 0}};
  const std::string free_text = json_of(post(c, "/v1/completions", body))["choices"][0]["text"];
  ASSERT_GE(free_text.size(), 12u);
  const std::string stop = free_text.substr(5, 4);  // likely across a token boundary
  body["stop"] = {stop, "zzzz-never"};
  const json r = json_of(post(c, "/v1/completions", body));
  EXPECT_EQ(r["choices"][0]["text"], free_text.substr(0, free_text.find(stop)));
  EXPECT_EQ(r["choices"][0]["finish_reason"], "stop");
  body["stream"] = true;
  const Streamed s = read_stream(post(c, "/v1/completions", body));
  EXPECT_EQ(s.text, free_text.substr(0, free_text.find(stop)));
  EXPECT_EQ(s.finish_reason, "stop");
}

TEST(Server, SeveralChoicesAndPrompts) {
  TestServer server({}, {.parallel = 4});
  auto c = server.client();
  const json body = {{"prompt", {"One", "Two"}}, {"n", 3}, {"max_tokens", 8}, {"seed", 5}};
  const json r = json_of(post(c, "/v1/completions", body));
  ASSERT_EQ(r["choices"].size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r["choices"][i]["index"], i);
  EXPECT_NE(r["choices"][0]["text"], r["choices"][1]["text"]);  // each choice its own seed
  EXPECT_EQ(r["usage"]["completion_tokens"], 48);
  EXPECT_EQ(json_of(post(c, "/v1/completions", body))["choices"], r["choices"]);  // repeatable
}

TEST(Server, LogprobsInBothShapes) {
  TestServer server;
  auto c = server.client();
  const json r =
      json_of(post(c, "/v1/completions",
                   {{"prompt", "Hello"}, {"max_tokens", 5}, {"logprobs", 3}, {"temperature", 0}}));
  const json& lp = r["choices"][0]["logprobs"];
  ASSERT_EQ(lp["tokens"].size(), 5u);
  ASSERT_EQ(lp["token_logprobs"].size(), 5u);
  ASSERT_EQ(lp["top_logprobs"].size(), 5u);
  ASSERT_EQ(lp["text_offset"].size(), 5u);
  std::string joined;
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(lp["text_offset"][i], joined.size());
    joined += lp["tokens"][i].get<std::string>();
    EXPECT_LE(lp["top_logprobs"][i].size(), 3u);
    double best = -1e9;
    for (auto& [token, value] : lp["top_logprobs"][i].items())
      best = std::max(best, value.get<double>());
    EXPECT_NEAR(lp["token_logprobs"][i].get<double>(), best, 1e-6);  // greedy: the best
    EXPECT_LE(lp["token_logprobs"][i].get<double>(), 0.0);
  }
  EXPECT_EQ(joined, r["choices"][0]["text"]);
  const json chat = json_of(post(c, "/v1/chat/completions",
                                 {{"messages", {{{"role", "user"}, {"content", "Hi"}}}},
                                  {"max_tokens", 4},
                                  {"logprobs", true},
                                  {"top_logprobs", 2}}));
  const json& content = chat["choices"][0]["logprobs"]["content"];
  ASSERT_EQ(content.size(), chat["usage"]["completion_tokens"].get<size_t>());
  for (const json& t : content) {
    EXPECT_EQ(t["top_logprobs"].size(), 2u);
    EXPECT_TRUE(t["bytes"].is_array());
  }
}

// echo + logprobs + max_tokens 0 scores a prompt: the first token has none, each other
// one its log-probability given the tokens before it (the same as when it is generated).
TEST(Server, EchoWithLogprobsScoresThePrompt) {
  TestServer server;
  auto c = server.client();
  const Tokenizer& tok = *server.model().tokenizer;
  const json one = json_of(
      post(c, "/v1/completions",
           {{"prompt", "Hello there"}, {"max_tokens", 1}, {"temperature", 0}, {"logprobs", 1}}));
  const double generated = one["choices"][0]["logprobs"]["token_logprobs"][0];
  std::vector<int32_t> ids = tok.encode("Hello there");
  ids.push_back(tok.encode(one["choices"][0]["text"].get<std::string>())[0]);
  const json scored = json_of(post(
      c, "/v1/completions", {{"prompt", ids}, {"max_tokens", 0}, {"echo", true}, {"logprobs", 2}}));
  const json& choice = scored["choices"][0];
  EXPECT_EQ(choice["text"], tok.decode(ids));
  EXPECT_EQ(choice["finish_reason"], "length");
  const json& lp = choice["logprobs"];
  ASSERT_EQ(lp["tokens"].size(), ids.size());
  EXPECT_TRUE(lp["token_logprobs"][0].is_null());
  EXPECT_TRUE(lp["top_logprobs"][0].is_null());
  EXPECT_NEAR(lp["token_logprobs"].back().get<double>(), generated, 1e-4);
  // The 2 most likely, and the token itself (OpenAI: up to logprobs + 1 of them).
  const json& top = lp["top_logprobs"][1];
  EXPECT_GE(top.size(), 2u);
  EXPECT_LE(top.size(), 3u);
  const std::string piece = tok.decode({ids[1]});
  ASSERT_TRUE(top.contains(piece));
  EXPECT_EQ(top[piece].get<double>(), lp["token_logprobs"][1].get<double>());
  EXPECT_EQ(lp["text_offset"][1], tok.decode({ids[0]}).size());
  EXPECT_EQ(scored["usage"]["completion_tokens"], 0);
}

TEST(Server, BadRequestsGetOneClearErrorAndTheServerGoesOn) {
  TestServer server;
  auto c = server.client();
  expect_error(c.Post("/v1/completions", "{not json", "application/json"), 400);
  expect_error(c.Post("/v1/completions", "[1, 2]", "application/json"), 400);
  expect_error(post(c, "/v1/completions", {{"max_tokens", 3}}), 400, "prompt");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"temperature", "hot"}}), 400,
               "temperature");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"temperature", -1}}), 400,
               "temperature");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", -2}}), 400,
               "max_tokens");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", 1e300}}), 400,
               "max_tokens");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"n", 17}}), 400, "n");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"model", "gpt-4"}}), 400, "model");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"stop", {"a", "b", "c", "d", "e"}}}),
               400, "stop");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", 64}}), 400,
               "max_tokens");  // 1 + 64 > context 64
  expect_error(post(c, "/v1/completions", {{"prompt", {1, -5}}}), 400, "prompt");
  expect_error(post(c, "/v1/completions", {{"prompt", {99999999}}}), 400);
  expect_error(post(c, "/v1/chat/completions", {{"messages", json::array()}}), 400, "messages");
  expect_error(
      post(c, "/v1/chat/completions", {{"messages", {{{"role", "robot"}, {"content", "x"}}}}}), 400,
      "messages[0].role");
  expect_error(post(c, "/v1/chat/completions",
                    {{"messages", {{{"role", "user"}, {"content", "x"}}}}, {"top_logprobs", 2}}),
               400, "top_logprobs");
  std::string deep(100000, '[');
  expect_error(c.Post("/v1/completions", deep, "application/json"), 400);
  expect_error(c.Post("/v1/completions", "{\"prompt\": \"\xff\xfe\"}", "application/json"), 400);
  EXPECT_EQ(c.Get("/health")->status, 200);
}

TEST(Server, TokenizeAndDetokenizeRoundTrip) {
  TestServer server;
  auto c = server.client();
  const std::string text = "Hello world! Ünïcödé 😀 text";
  const json t = json_of(post(c, "/tokenize", {{"content", text}}));
  EXPECT_EQ(t["tokens"].get<std::vector<int32_t>>(), server.model().tokenizer->encode(text));
  EXPECT_EQ(json_of(post(c, "/detokenize", {{"tokens", t["tokens"]}}))["content"], text);
  const json pieces = json_of(post(c, "/tokenize", {{"content", "😀"}, {"with_pieces", true}}));
  std::string bytes;
  for (const json& p : pieces["tokens"])
    for (const json& b : p["bytes"]) bytes += static_cast<char>(b.get<int>());
  EXPECT_EQ(bytes, "😀");
  expect_error(post(c, "/detokenize", {{"tokens", {1, 60000}}}), 400, "tokens");
  expect_error(post(c, "/tokenize", {{"text", "x"}}), 400, "content");
}

// A model padded past its tokenizer (nanoGPT's 50304 rows) that generates padding ids:
// they answer as text "" (llama.cpp's [PAD] tokens), not as a failed request.
TEST(Server, PaddingIdsAnswerWithNoText) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("tinylm-serve-padded-" + std::to_string(::getpid()));
  tinylm::testing::write_folder_that_generates_padding(dir.string());
  {
    TestServer server({}, {}, dir.string());
    auto c = server.client();
    const json body = {{"prompt", "Hello"}, {"max_tokens", 3}, {"logprobs", 2}};
    const json r = json_of(post(c, "/v1/completions", body));
    EXPECT_EQ(r["choices"][0]["text"], "");
    EXPECT_EQ(r["choices"][0]["logprobs"]["tokens"], json({"", "", ""}));
    EXPECT_EQ(r["usage"]["completion_tokens"], 3);
    json streamed = body;
    streamed["stream"] = true;
    const auto res = post(c, "/v1/completions", streamed);
    ASSERT_EQ(res->status, 200);
    const std::vector<std::string> events = sse_payloads(res->body);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back(), "[DONE]");
    const int32_t pad = tinylm::testing::kGeneratedPaddingId;
    const json d = json_of(post(c, "/detokenize", {{"tokens", {15496, pad}}}));
    EXPECT_EQ(d["content"], "Hello");
    expect_error(post(c, "/detokenize", {{"tokens", {50304}}}), 400, "tokens");
  }
  std::filesystem::remove_all(dir);
}

TEST(Server, ApiKeyAndCors) {
  ServerOptions o;
  o.api_key = "s3cret";
  o.cors_origin = "http://localhost:3000";
  TestServer server(o);
  auto c = server.client();
  const json body = {{"prompt", "a"}, {"max_tokens", 1}};
  expect_error(post(c, "/v1/completions", body), 401);
  c.set_bearer_token_auth("wrong");
  expect_error(post(c, "/v1/completions", body), 401);
  expect_error(c.Get("/metrics"), 401);
  c.set_bearer_token_auth("s3cret");
  EXPECT_EQ(post(c, "/v1/completions", body)->status, 200);
  auto open = server.client();  // no key: the public routes only
  EXPECT_EQ(open.Get("/health")->status, 200);
  EXPECT_EQ(open.Get("/v1/models")->status, 200);
  const httplib::Headers from_app = {{"Origin", "http://localhost:3000"},
                                     {"Access-Control-Request-Method", "POST"}};
  auto pre = open.Options("/v1/chat/completions", from_app);
  ASSERT_TRUE(pre);
  EXPECT_EQ(pre->status, 204);
  EXPECT_EQ(pre->get_header_value("Access-Control-Allow-Origin"), "http://localhost:3000");
  EXPECT_NE(pre->get_header_value("Access-Control-Allow-Headers").find("Authorization"),
            std::string::npos);
  auto other = open.Get("/health", {{"Origin", "http://evil.example"}});
  EXPECT_FALSE(other->has_header("Access-Control-Allow-Origin"));
}

TEST(Server, BodyLimit) {
  ServerOptions o;
  o.max_body_bytes = 1000;
  TestServer server(o);
  auto c = server.client();
  const json big = {{"prompt", std::string(2000, 'a')}};
  auto r = post(c, "/v1/completions", big);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(c.Get("/health")->status, 200);
}

// With the one slot busy and the queue (of one) full, the next request gets 503 in
// OpenAI's error shape; the ones in flight were accepted (200). They stream until the test
// lets them go (then they disconnect), so no timing decides the outcome, however slow the
// build.
TEST(Server, AFullQueueAnswers503) {
  TestServer server({}, {.parallel = 1, .queue_limit = 1}, testing::slow_model());
  auto c = server.client();
  std::atomic<bool> release{false};
  auto running =
      std::async(std::launch::async, [&] { return stream_until_released(server, release); });
  EXPECT_TRUE(wait_for_metric(c, "tinylm_slots_busy", "1"));
  auto waiting =
      std::async(std::launch::async, [&] { return stream_until_released(server, release); });
  EXPECT_TRUE(wait_for_metric(c, "tinylm_queue_length", "1"));
  const auto refused = post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", 1}});
  expect_error(refused, 503);
  EXPECT_EQ(json_of(refused)["error"]["code"], "server_busy");
  release = true;
  EXPECT_EQ(running.get(), 200);
  EXPECT_EQ(waiting.get(), 200);
}

// Every request the engine can hold has a connection: with more of them waiting than
// httplib's default pool of 8 threads, the queue still fills to its limit, /health and
// /metrics still answer, and the next request gets its 503 at once.
TEST(Server, AQueueLongerThanEightStillAnswersHealthAnd503) {
  constexpr int kQueue = 12;
  TestServer server({}, {.parallel = 1, .queue_limit = kQueue}, testing::slow_model());
  auto c = server.client();
  std::atomic<bool> release{false};
  std::vector<std::future<int>> held;
  struct ReleaseOnExit {  // however the test ends, the held streams end before it waits on them
    std::atomic<bool>& release;
    ~ReleaseOnExit() { release = true; }
  } release_on_exit{release};
  const auto hold = [&] {
    held.push_back(
        std::async(std::launch::async, [&] { return stream_until_released(server, release); }));
  };
  hold();
  EXPECT_TRUE(wait_for_metric(c, "tinylm_slots_busy", "1"));
  for (int i = 0; i < kQueue; ++i) hold();
  EXPECT_TRUE(wait_for_metric(c, "tinylm_queue_length", std::to_string(kQueue)));
  const auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  const auto refused = post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", 1}});
  expect_error(refused, 503);
  release = true;
  for (auto& h : held) EXPECT_EQ(h.get(), 200);
}

// A request still running at the server's limit (--timeout; 0 s here, so every one is
// past it at its first look) is cancelled: 504 in OpenAI's error shape, and the server
// goes on serving.
TEST(Server, ARequestPastTheTimeLimitIs504) {
  ServerOptions o;
  o.request_timeout_seconds = 0;
  TestServer server(o);
  auto c = server.client();
  const auto r = post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", 5}});
  expect_error(r, 504);
  EXPECT_EQ(json_of(r)["error"]["type"], "timeout_error");
  EXPECT_EQ(c.Get("/health")->status, 200);
}

// A client that goes away in the middle of a stream frees its slot (seen in /metrics).
TEST(Server, ADisconnectingClientFreesItsSlot) {
  TestServer server({}, {.parallel = 1}, testing::slow_model());
  {
    auto c = server.client();
    int chunks = 0;
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/completions";
    req.body = json({{"prompt", "a"}, {"max_tokens", 1000}, {"stream", true}}).dump();
    req.set_header("Content-Type", "application/json");
    req.content_receiver = [&](const char*, size_t, uint64_t, uint64_t) { return ++chunks < 2; };
    c.send(req);  // the receiver stops after the first chunk: the connection closes
  }
  auto c = server.client();
  std::string metrics;
  for (int i = 0; i < 200; ++i) {
    metrics = c.Get("/metrics")->body;
    if (metrics.find("tinylm_generations_cancelled_total 1") != std::string::npos &&
        metrics.find("tinylm_slots_busy 0") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(metrics.find("tinylm_generations_cancelled_total 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("tinylm_slots_busy 0"), std::string::npos) << metrics;
  // The slot serves the next request.
  EXPECT_EQ(post(c, "/v1/completions", {{"prompt", "b"}, {"max_tokens", 2}})->status, 200);
  EXPECT_NE(c.Get("/metrics")
                ->body.find("tinylm_requests_total{route=\"/v1/completions\",status=\"200\"}"),
            std::string::npos);
}

// The teaching routes: the distribution before and after the samplers, and attention.
TEST(Server, NextTokenDistributionBeforeAndAfterTheSamplers) {
  TestServer server;
  auto c = server.client();
  const json r =
      json_of(post(c, "/tinylm/next-token",
                   {{"prompt", "Hello there"}, {"top_k", 5}, {"temperature", 0.5}, {"top", 10}}));
  EXPECT_EQ(r["tokens"].size(), server.model().tokenizer->encode("Hello there").size());
  ASSERT_EQ(r["before"].size(), 10u);
  ASSERT_EQ(r["after"].size(), 5u);  // top-k 5 leaves five
  EXPECT_EQ(r["candidates"], 5);
  double after_sum = 0.0;
  for (const json& t : r["after"]) after_sum += t["prob"].get<double>();
  EXPECT_NEAR(after_sum, 1.0, 1e-9);
  // The same tokens lead; a temperature below 1 sharpens the first one's share.
  EXPECT_EQ(r["after"][0]["id"], r["before"][0]["id"]);
  EXPECT_GT(r["after"][0]["prob"].get<double>(), r["before"][0]["prob"].get<double>());
  const json greedy =
      json_of(post(c, "/tinylm/next-token", {{"prompt", "Hello"}, {"temperature", 0}}));
  ASSERT_EQ(greedy["after"].size(), 1u);
  EXPECT_EQ(greedy["after"][0]["prob"], 1.0);
  expect_error(post(c, "/tinylm/next-token", {{"prompt", ""}}), 400, "prompt");
  expect_error(post(c, "/tinylm/next-token", {{"prompt", "a"}, {"top", 0}}), 400, "top");
}

TEST(Server, AttentionPerLayerAndHead) {
  TestServer server;
  auto c = server.client();
  const json r = json_of(post(c, "/tinylm/attention", {{"prompt", "The cat sat on the mat"}}));
  const size_t T = r["tokens"].size();
  EXPECT_EQ(r["layers"], 2);
  EXPECT_EQ(r["heads"], 4);
  ASSERT_EQ(r["attention"].size(), 2u);
  ASSERT_EQ(r["attention"][1].size(), 4u);
  const json& rows = r["attention"][1][3];
  ASSERT_EQ(rows.size(), T);
  for (size_t q = 0; q < T; ++q) {
    double sum = 0.0;
    for (size_t k = 0; k < T; ++k) {
      if (k > q) {
        EXPECT_EQ(rows[q][k], 0.0);  // causal
      }
      sum += rows[q][k].get<double>();
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  expect_error(post(c, "/tinylm/attention", {{"text", "x"}}), 400, "prompt");
}

}  // namespace
}  // namespace tinylm::serve
