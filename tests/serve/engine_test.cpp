// The serving loop: a request gets the same tokens alone or among others (continuous
// batching does not change results), stop texts and lengths end it with the right reason,
// a full queue refuses, a cancelled request frees its slot, bad requests are refused.
#include "serve/engine.h"

#include <gtest/gtest.h>

#include "tokenizer/char_tokenizer.h"
#include "util/error.h"

namespace tinylm::serve {
namespace {

constexpr const char* kCorpus = "abcdefghijklmnopqrstuvwxyz .,!?";

// big: a model slow enough (context 1024) that a long request is still running while
// the test acts.
struct Fixture {
  explicit Fixture(bool big = false, int64_t d_model = 24)
      : tok(CharTokenizer::from_corpus(kCorpus)), big(big), d_model(d_model), model(config()) {
    Rng rng(3);
    model.init(rng);
    for (auto& p : model.parameters())
      for (int64_t i = 0; i < p.param->value.numel(); ++i) p.param->value[i] += 0.3f * rng.normal();
    decode_with(decode::DecodeWeights::kF32);
  }
  // A decoding context on the final weights.
  void decode_with(decode::DecodeWeights type) {
    decoder = std::make_unique<DecodeContext>(model, type);
  }
  GPTConfig config() const {
    GPTConfig c;
    c.vocab_size = tok.vocab_size(), c.block_size = 48, c.n_layer = 2, c.n_head = 2;
    c.d_model = d_model;
    if (big) c.block_size = 1024, c.n_layer = 4, c.d_model = 128;
    return c;
  }
  CharTokenizer tok;
  bool big;
  int64_t d_model;
  GPT model;
  std::unique_ptr<DecodeContext> decoder;
};

struct Result {
  std::vector<int32_t> tokens;
  std::string text, finish_reason;
  int64_t completion_tokens = 0;
};

Result collect(Job& job) {
  Result r;
  GenerationEvent e;
  while (job.next(e, std::chrono::seconds(30))) {
    r.text += e.text;
    if (e.done) {
      r.finish_reason = e.finish_reason;
      r.completion_tokens = e.completion_tokens;
      return r;
    }
    r.tokens.push_back(e.token);
  }
  ADD_FAILURE() << "no final event within 30 s";
  return r;
}

GenerationRequest request(const Fixture& f, const std::string& prompt, uint64_t seed) {
  GenerationRequest r;
  r.prompt = f.tok.encode(prompt);
  r.max_tokens = 20;
  r.sampling.top_k = 10;
  r.seed = seed;
  return r;
}

// Whatever weights decode steps read (decode/decode_weights.h): float32, f16 or bf16 copies,
// or Q8_0 copies (d_model 32: whole blocks of 32).
class EngineBatching : public ::testing::TestWithParam<decode::DecodeWeights> {};

TEST_P(EngineBatching, ARequestGetsTheSameTokensAloneOrAmongOthers) {
  const decode::DecodeWeights type = GetParam();
  Fixture f(false, type == decode::DecodeWeights::kQ8_0 ? 32 : 24);
  f.decode_with(type);
  const std::vector<std::string> prompts = {"hello", "a",     "the quick brown", "zz", "ok, now",
                                            "what?", "x y z", "more text here"};
  std::vector<Result> alone;
  {
    Engine engine(*f.decoder, f.tok, {.parallel = 1});
    for (size_t i = 0; i < prompts.size(); ++i)
      alone.push_back(collect(*engine.submit(request(f, prompts[i], 100 + i))));
  }
  for (int64_t parallel : {3, 8}) {
    Engine engine(*f.decoder, f.tok, {.parallel = parallel});
    std::vector<std::shared_ptr<Job>> jobs;
    for (size_t i = 0; i < prompts.size(); ++i)
      jobs.push_back(engine.submit(request(f, prompts[i], 100 + i)));
    for (size_t i = 0; i < prompts.size(); ++i) {
      const Result r = collect(*jobs[i]);
      EXPECT_EQ(r.tokens, alone[i].tokens) << "parallel " << parallel << " prompt " << i;
      EXPECT_EQ(r.text, alone[i].text);
      EXPECT_EQ(r.text, f.tok.decode(r.tokens));
      EXPECT_EQ(r.finish_reason, "length");
      EXPECT_EQ(r.completion_tokens, 20);
    }
    EXPECT_GT(engine.stats().decode_steps, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(DecodeWeights, EngineBatching,
                         ::testing::Values(decode::DecodeWeights::kF32, decode::DecodeWeights::kF16,
                                           decode::DecodeWeights::kBf16,
                                           decode::DecodeWeights::kQ8_0),
                         [](const auto& info) { return decode::decode_weights_name(info.param); });

TEST(Engine, StopTextsEndTheTextBeforeThem) {
  Fixture f;
  Engine engine(*f.decoder, f.tok, {.parallel = 2});
  GenerationRequest r = request(f, "abc", 7);
  r.max_tokens = 40;
  const Result free_run = collect(*engine.submit(r));
  ASSERT_GE(free_run.text.size(), 6u);
  r.stop = {free_run.text.substr(3, 2), "never"};  // appears at byte 3 (or earlier)
  const Result stopped = collect(*engine.submit(r));
  EXPECT_EQ(stopped.finish_reason, "stop");
  EXPECT_EQ(stopped.text, free_run.text.substr(0, free_run.text.find(r.stop[0])));
  EXPECT_LE(stopped.completion_tokens, 5);
}

TEST(Engine, RefusesWhatItCannotRunAndAFullQueue) {
  Fixture f(/*big=*/true);
  Engine engine(*f.decoder, f.tok, {.parallel = 1, .queue_limit = 1});
  GenerationRequest r = request(f, "abc", 1);
  r.max_tokens = 1022;  // 3 + 1022 > 1024
  EXPECT_THROW(engine.submit(r), InputError);
  r.prompt = {};
  EXPECT_THROW(engine.submit(r), InputError);
  r.prompt = {999};
  EXPECT_THROW(engine.submit(r), InputError);
  // A long request holds the slot, one waits in the queue, the next is refused.
  r = request(f, "abc", 1);
  r.max_tokens = 1000;
  auto running = engine.submit(r);
  GenerationEvent e;
  ASSERT_TRUE(running->next(e, std::chrono::seconds(30)));  // it is in its slot now
  auto waiting = engine.submit(r);
  ASSERT_NE(waiting, nullptr);
  EXPECT_EQ(engine.submit(r), nullptr);
  running->cancel();  // the slot is freed; the waiting request runs to its end
  EXPECT_EQ(collect(*waiting).completion_tokens, 1000);
  EXPECT_EQ(engine.stats().cancelled, 1);
}

TEST(Engine, GreedyAndZeroTokens) {
  Fixture f;
  Engine engine(*f.decoder, f.tok, {.parallel = 2});
  GenerationRequest r = request(f, "hello", 1);
  r.sampling.greedy = true;
  r.top_logprobs = 3;
  auto job = engine.submit(r);
  GenerationEvent e;
  ASSERT_TRUE(job->next(e, std::chrono::seconds(30)));
  ASSERT_EQ(e.top.size(), 3u);
  EXPECT_EQ(e.top[0].id, e.token);  // greedy takes the most likely token
  EXPECT_FLOAT_EQ(e.top[0].logprob, e.logprob);
  EXPECT_LE(e.logprob, 0.0f);
  EXPECT_GE(e.top[0].logprob, e.top[1].logprob);
  r.max_tokens = 0;
  const Result none = collect(*engine.submit(r));
  EXPECT_EQ(none.completion_tokens, 0);
  EXPECT_EQ(none.finish_reason, "length");
}

}  // namespace
}  // namespace tinylm::serve
