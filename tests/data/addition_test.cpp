// The 3-digit addition task and its tokenizer.
#include "data/addition.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "data/test_util.h"
#include "tokenizer/addition_tokenizer.h"
#include "tokenizer/load.h"

namespace tinylm {
namespace {

using testing::input_error;
using Ids = std::vector<int32_t>;
constexpr int32_t I = kIgnoreTarget;

TEST(AdditionTokenizer, VocabularyAndRoundTrip) {
  const AdditionTokenizer tok;
  EXPECT_EQ(tok.kind(), "addition");
  EXPECT_EQ(tok.vocab_size(), 14);
  EXPECT_EQ(tok.encode("0123456789+=<PAD><EOS>"),
            (Ids{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
  EXPECT_EQ(tok.decode({1, 2, 3, 10, 4, 5, 6, 11, 9, 7, 5, 0, 13}), "123+456=9750<EOS>");
  EXPECT_EQ(tok.eot_id(), 13);
  EXPECT_THROW(tok.decode({14}), InputError);
  const std::string msg = input_error([&] { tok.encode("12 +3"); });
  EXPECT_NE(msg.find("U+0020"), std::string::npos) << msg;
  EXPECT_NE(msg.find("byte 2"), std::string::npos) << msg;
  EXPECT_THROW(tok.encode("1<EO"), InputError);
  // Through the generic loader.
  const auto loaded = tokenizer_from_json(nlohmann::json::parse(tok.to_json().dump()));
  EXPECT_EQ(loaded->kind(), "addition");
  EXPECT_EQ(loaded->encode("9+<EOS>"), (Ids{9, 10, 13}));
}

TEST(Addition, TheBookExample) {
  const AdditionProblem p{123, 456};
  EXPECT_EQ(addition_sequence(p), (Ids{1, 2, 3, 10, 4, 5, 6, 11, 9, 7, 5, 0, 13}));
  EXPECT_EQ(addition_prompt(p), (Ids{1, 2, 3, 10, 4, 5, 6, 11}));
  EXPECT_EQ(addition_answer(p), "9750");
  EXPECT_EQ(format_addition(p), "123+456=9750");
  EXPECT_EQ(format_addition(p, false), "123+456=");
  EXPECT_EQ(AdditionTokenizer().encode(format_addition(p) + "<EOS>"), addition_sequence(p));
}

TEST(Addition, PaddingAndCarries) {
  EXPECT_EQ(format_addition({0, 0}), "000+000=0000");
  EXPECT_EQ(format_addition({7, 5}), "007+005=2100");      // 12 -> "0012" reversed
  EXPECT_EQ(format_addition({999, 999}), "999+999=8991");  // 1998
  EXPECT_EQ(format_addition({500, 500}), "500+500=0001");  // 1000
  EXPECT_THROW(addition_sequence({1000, 0}), InputError);
  EXPECT_THROW(addition_sequence({0, -1}), InputError);
}

TEST(Addition, ParseText) {
  EXPECT_EQ(parse_addition("123+456="), (AdditionProblem{123, 456}));
  EXPECT_EQ(parse_addition("123+456=9750"), (AdditionProblem{123, 456}));
  EXPECT_EQ(parse_addition("007+005=2100<EOS>"), (AdditionProblem{7, 5}));
  EXPECT_EQ(parse_addition("123+456=0000"), (AdditionProblem{123, 456}));  // not checked
  for (const char* bad : {"12+456=", "123+456", "123=456+", "123+456=975",
                          "1a3+456=", "123+456=97500", "123+4+6=", "123+456=9750<PAD>", ""}) {
    EXPECT_THROW(parse_addition(bad), InputError) << bad;
  }
}

TEST(Addition, PositionRoles) {
  const std::vector<std::string> want = {
      "a 100s", "a 10s",  "a 1s",    "+",        "b 100s",    "b 10s", "b 1s",  // "aaa+bbb"
      "=",      "sum 1s", "sum 10s", "sum 100s", "sum 1000s", ""};
  for (int64_t pos = 0; pos < kAdditionSeqLen; ++pos)
    EXPECT_EQ(addition_position_role(pos), want[pos]) << pos;
  EXPECT_EQ(addition_position_role(-1), "");
  EXPECT_EQ(addition_position_role(100), "");
}

TEST(Addition, AnswerChecker) {
  const AdditionProblem p{123, 456};
  EXPECT_TRUE(is_correct_answer(p, Ids{9, 7, 5, 0}));
  EXPECT_TRUE(is_correct_answer(p, Ids{9, 7, 5, 0, 13}));
  EXPECT_FALSE(is_correct_answer(p, Ids{9, 7, 5, 1}));
  EXPECT_FALSE(is_correct_answer(p, Ids{0, 5, 7, 9}));  // most significant first is wrong
  EXPECT_FALSE(is_correct_answer(p, Ids{9, 7, 5}));
  EXPECT_FALSE(is_correct_answer(p, Ids{9, 7, 5, 0, 12}));
  EXPECT_TRUE(is_correct_answer(p, std::string_view("9750")));
  EXPECT_TRUE(is_correct_answer(p, std::string_view("9750<EOS>")));
  EXPECT_FALSE(is_correct_answer(p, std::string_view("975x")));
}

TEST(Addition, TrainingBatchSupervisesOnlyTheAnswer) {
  const Batch b = addition_batch({{123, 456}});
  EXPECT_EQ(b.B, 1);
  EXPECT_EQ(b.T, 12);
  EXPECT_EQ(b.inputs, (Ids{1, 2, 3, 10, 4, 5, 6, 11, 9, 7, 5, 0}));
  EXPECT_EQ(b.targets, (Ids{I, I, I, I, I, I, I, 9, 7, 5, 0, 13}));
  EXPECT_EQ(b.supervised(), 5);
}

TEST(Addition, RandomProblemsAreCorrectSums) {
  Rng rng(3);
  const AdditionTokenizer tok;
  const Batch b = addition_training_batch(256, rng);
  ASSERT_EQ(b.B, 256);
  EXPECT_EQ(b.supervised(), 256 * 5);
  std::set<std::pair<int, int>> distinct;
  for (int64_t r = 0; r < b.B; ++r) {
    const Ids in(b.inputs.begin() + r * 12, b.inputs.begin() + r * 12 + 12);
    const Ids tg(b.targets.begin() + r * 12, b.targets.begin() + r * 12 + 12);
    for (int t = 0; t < 7; ++t) EXPECT_EQ(tg[t], I);
    for (int t = 7; t < 11; ++t) EXPECT_EQ(tg[t], in[t + 1]);  // shifted by one
    EXPECT_EQ(tg[11], AdditionTokenizer::kEos);
    // Decode the text back and check the sum by ordinary arithmetic.
    const std::string text = tok.decode(in) + tok.decode({tg[11]});
    const AdditionProblem p = parse_addition(text);
    const Ids answer(tg.begin() + 7, tg.end());
    EXPECT_TRUE(is_correct_answer(p, answer)) << text;
    const int sum = answer[0] + 10 * answer[1] + 100 * answer[2] + 1000 * answer[3];
    EXPECT_EQ(sum, p.a + p.b) << text;
    distinct.insert({p.a, p.b});
  }
  EXPECT_GT(distinct.size(), 250u);
  // Same seed, same batch.
  Rng again(3);
  EXPECT_EQ(addition_training_batch(256, again).inputs, b.inputs);
}

TEST(Addition, HeldOutSplit) {
  const int64_t n = num_held_out_problems();
  EXPECT_GT(n, 9000);  // about 1% of 1,000,000
  EXPECT_LT(n, 11000);
  const std::vector<AdditionProblem> held = held_out_problems(n);
  std::set<std::pair<int, int>> held_set;
  for (const auto& p : held) {
    EXPECT_TRUE(is_held_out(p));
    held_set.insert({p.a, p.b});
  }
  EXPECT_EQ(static_cast<int64_t>(held_set.size()), n);
  // Deterministic, and a prefix is the first problems of the full list.
  EXPECT_EQ(held_out_problems(100), std::vector<AdditionProblem>(held.begin(), held.begin() + 100));
  EXPECT_THROW(held_out_problems(n + 1), InputError);

  // The training generator never produces a held-out problem.
  Rng rng(11);
  for (int i = 0; i < 200000; ++i) {
    const AdditionProblem p = sample_training_problem(rng);
    ASSERT_FALSE(held_set.count({p.a, p.b})) << p.a << "+" << p.b;
  }
  // Held-out problems make ordinary evaluation batches.
  const Batch eval = addition_batch(held_out_problems(4));
  EXPECT_EQ(eval.B, 4);
  EXPECT_EQ(eval.supervised(), 20);
}

}  // namespace
}  // namespace tinylm
