// The OpenAI request fields that change what is chosen (logit_bias, presence and
// frequency penalties), the held-back text at <|endoftext|>, the legacy logprobs'
// chosen token, and the limits a request is checked against: over real sockets.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "serve/logit_adjust.h"
#include "serve/server_harness.h"
#include "tokenizer/word_tokenizer.h"

namespace tinylm::serve {
namespace {

using nlohmann::json;
using testing::expect_error;
using testing::json_of;
using testing::post;
using testing::TestServer;

TEST(LogitAdjust, BiasThenPenaltiesPerGeneratedToken) {
  std::vector<float> logits = {1.0f, 2.0f, 3.0f, 4.0f};
  LogitAdjustments a;
  a.bias = {{0, 10.0f}, {3, -100.0f}};
  a.presence_penalty = 0.5f;
  a.frequency_penalty = 0.25f;
  adjust_logits(logits.data(), 4, a, {{1, 2}, {2, 0}});
  EXPECT_FLOAT_EQ(logits[0], 11.0f);
  EXPECT_FLOAT_EQ(logits[1], 2.0f - 2 * 0.25f - 0.5f);  // generated twice
  EXPECT_FLOAT_EQ(logits[2], 3.0f);                     // a count of 0: not generated
  EXPECT_FLOAT_EQ(logits[3], -96.0f);
  EXPECT_FALSE(LogitAdjustments{}.any());
}

// A bias of 100 makes a token the greedy choice every time; a penalty takes it away
// once it has come.
TEST(OpenAiFields, LogitBiasAndPenaltiesChooseTheTokens) {
  TestServer server;
  auto c = server.client();
  const Tokenizer& tok = *server.model().tokenizer;
  const int32_t a = tok.encode("a")[0];
  const json biased = json_of(post(c, "/v1/completions",
                                   {{"prompt", "Hello"},
                                    {"max_tokens", 4},
                                    {"temperature", 0},
                                    {"logit_bias", {{std::to_string(a), 100}}}}));
  EXPECT_EQ(biased["choices"][0]["text"], "aaaa");
  // a +100 and b +90: a comes until its penalties (2 once, and 2 per time) sink it below
  // b; without penalties a comes every time.
  const int32_t b = tok.encode("b")[0];
  const json penalised =
      json_of(post(c, "/v1/completions",
                   {{"prompt", "Hello"},
                    {"max_tokens", 16},
                    {"temperature", 0},
                    {"presence_penalty", 2},
                    {"frequency_penalty", 2},
                    {"logit_bias", {{std::to_string(a), 100}, {std::to_string(b), 90}}}}));
  const std::string text = penalised["choices"][0]["text"];
  const size_t first_b = text.find_first_not_of('a');
  ASSERT_NE(first_b, std::string::npos) << text;
  EXPECT_GT(first_b, 0u) << text;
  EXPECT_EQ(text[first_b], 'b') << text;
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"logit_bias", {{"x", 1}}}}), 400,
               "logit_bias");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"logit_bias", {{"99999", 1}}}}), 400,
               "logit_bias");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"logit_bias", {{"5", 101}}}}), 400,
               "logit_bias");
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"presence_penalty", 3}}), 400,
               "presence_penalty");
  expect_error(
      post(c, "/v1/chat/completions",
           {{"messages", {{{"role", "user"}, {"content", "x"}}}}, {"frequency_penalty", -2.5}}),
      400, "frequency_penalty");
}

// "a" is forced until the frequency penalty lets <|endoftext|> win; every "a" is held back
// meanwhile, since the text so far is the start of the stop text. At <|endoftext|> the
// held-back text is the end of the answer, streamed or not.
TEST(OpenAiFields, TextHeldBackForAStopTextEndsTheAnswerAtEndOfText) {
  TestServer server;
  auto c = server.client();
  const Tokenizer& tok = *server.model().tokenizer;
  const json body = {
      {"prompt", "Hello"},
      {"max_tokens", 40},
      {"temperature", 0},
      {"frequency_penalty", 2},
      {"stop", std::string(60, 'a')},
      {"logit_bias",
       {{std::to_string(tok.encode("a")[0]), 100}, {std::to_string(tok.eot_id()), 90}}}};
  const json r = json_of(post(c, "/v1/completions", body));
  const json& choice = r["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  const int64_t n = r["usage"]["completion_tokens"];
  ASSERT_GT(n, 1);  // some "a", then <|endoftext|>
  EXPECT_LT(n, 40);
  EXPECT_EQ(choice["text"], std::string(n - 1, 'a'));
  json streamed = body;
  streamed["stream"] = true;
  std::string text;
  for (const std::string& p : testing::sse_payloads(post(c, "/v1/completions", streamed)->body))
    if (p != "[DONE]") text += json::parse(p)["choices"][0]["text"].get<std::string>();
  EXPECT_EQ(text, choice["text"]);
}

// Legacy completions list the chosen token among the alternatives, as OpenAI does (up to
// logprobs + 1 of them).
TEST(OpenAiFields, LegacyLogprobsIncludeTheChosenToken) {
  TestServer server;
  auto c = server.client();
  const int32_t a = server.model().tokenizer->encode(" zebra")[0];
  const std::string piece = server.model().tokenizer->decode({a});
  const json r = json_of(post(c, "/v1/completions",
                              {{"prompt", "Hello"},
                               {"max_tokens", 1},
                               {"temperature", 0},
                               {"logprobs", 1},
                               {"logit_bias", {{std::to_string(a), 100}}}}));
  const json& lp = r["choices"][0]["logprobs"];
  ASSERT_EQ(lp["tokens"][0], piece);
  const json& top = lp["top_logprobs"][0];
  ASSERT_TRUE(top.contains(piece)) << top;
  EXPECT_EQ(top[piece].get<double>(), lp["token_logprobs"][0].get<double>());
  EXPECT_EQ(top.size(), 2u);  // the model's own favourite, and the token chosen (biased)
}

// A completion continues its prompt's text: with a word vocabulary its first word comes
// with the space that joins it to the prompt, as tokenizer.decode(prompt + answer) has it.
TEST(OpenAiFields, ACompletionOfWordsContinuesThePromptsText) {
  OpenedModel m = testing::random_gpt2(32, 16, 1);
  auto words = std::make_unique<WordTokenizer>(WordTokenizer::from_corpus("I had always longed ."));
  GPTConfig c = m.lm->config();
  c.vocab_size = words->vocab_size();
  m.lm = std::make_unique<GPT>(c);
  Rng rng(1);
  m.lm->init(rng);
  const int32_t longed = words->encode("longed")[0];
  m.tokenizer = std::move(words);
  TestServer server({}, {}, std::move(m));
  auto client = server.client();
  const json r = json_of(post(client, "/v1/completions",
                              {{"prompt", "I had always"},
                               {"max_tokens", 2},
                               {"temperature", 0},
                               {"logit_bias", {{std::to_string(longed), 100}}}}));
  EXPECT_EQ(r["choices"][0]["text"], " longed longed");
}

TEST(OpenAiFields, LimitsNameTheirField) {
  TestServer server;
  auto c = server.client();
  expect_error(post(c, "/v1/completions", {{"prompt", "a"}, {"n", 0}}), 400, "n");
  expect_error(post(c, "/v1/completions", {{"prompt", {99999999}}}), 400, "prompt");
  const auto long_ask = post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", 100000}});
  expect_error(long_ask, 400, "max_tokens");
  EXPECT_EQ(json_of(long_ask)["error"]["code"], "context_length_exceeded");
  std::vector<int32_t> too_long(70, 5);  // the fixture's context is 64
  expect_error(post(c, "/v1/completions", {{"prompt", too_long}, {"max_tokens", 0}}), 400,
               "prompt");
  // 16 prompts x 16 choices can never be queued at once (64): 400, not a 503 to retry.
  const auto many =
      post(c, "/v1/completions", {{"prompt", std::vector<std::string>(16, "a")}, {"n", 16}});
  expect_error(many, 400, "n");
  EXPECT_EQ(post(c, "/v1/completions", {{"prompt", "a"}, {"max_tokens", 1}})->status, 200);
}

}  // namespace
}  // namespace tinylm::serve
