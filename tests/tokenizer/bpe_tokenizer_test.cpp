// GPT-2 BPE: known answers from tiktoken, the tiktoken fixture, round trips, specials,
// decoding of invalid byte sequences, errors.
#include "tokenizer/bpe_tokenizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tokenizer/bpe_check.h"
#include "util/error.h"
#include "util/files.h"
#include "util/rng.h"
#include "util/source_dir.h"
#include "util/utf8.h"

namespace tinylm {
namespace {

const BpeTokenizer& gpt2() {
  static const BpeTokenizer tokenizer;  // data/gpt2 in the source tree
  return tokenizer;
}
using Ids = std::vector<int32_t>;

TEST(Gpt2Tokenizer, LoadsTheVocabulary) {
  EXPECT_EQ(gpt2().kind(), "gpt2");
  EXPECT_EQ(gpt2().vocab_size(), 50257);
  EXPECT_EQ(gpt2().eot_id(), 50256);
  EXPECT_EQ(gpt2().vocab().n_merges, 50000);
  EXPECT_EQ(gpt2().to_json(), nlohmann::json({{"kind", "gpt2"}}));
}

TEST(Gpt2Tokenizer, KnownAnswerWithEndOfText) {
  const std::string text =
      "Hello, do you like tea? <|endoftext|> In the sunlit terraces of someunknownPlace.";
  const Ids expected = {15496, 11,   466,   345,  588,  8887, 30,  220,   50256, 554,
                        262,   4252, 18250, 8812, 2114, 286,  617, 34680, 27271, 13};
  EXPECT_EQ(gpt2().encode(text, AllowedSpecials{false, {"<|endoftext|>"}}), expected);
  EXPECT_EQ(gpt2().encode(text), expected);  // the interface allows <|endoftext|>
  EXPECT_EQ(gpt2().decode(expected), text);
}

TEST(Gpt2Tokenizer, SpecialTokensFollowTiktoken) {
  const std::string text = "a<|endoftext|>b";
  EXPECT_THROW(gpt2().encode(text, AllowedSpecials::none()), InputError);
  const Ids ordinary = gpt2().encode_ordinary(text);
  EXPECT_EQ(std::count(ordinary.begin(), ordinary.end(), 50256), 0);
  EXPECT_EQ(gpt2().decode(ordinary), text);
  EXPECT_EQ(gpt2().encode(text, AllowedSpecials::every()), (Ids{64, 50256, 65}));
  EXPECT_EQ(gpt2().encode("<|endoftext|><|endoftext|>"), (Ids{50256, 50256}));
}

TEST(Gpt2Tokenizer, TiktokenFixture) {
  const std::string path =
      std::string(tinylm::source_dir()) + "/tests/fixtures/tiktoken-gpt2.jsonl";
  const BpeCheckResult r = check_jsonl(gpt2(), read_file(path), path);
  for (const auto& m : r.mismatches)
    ADD_FAILURE() << "line " << m.line << ": expected " << format_ids(m.expected) << " got "
                  << format_ids(m.got) << " " << m.error;
  EXPECT_EQ(r.passed, 351u);
  EXPECT_EQ(r.failed, 0u);
}

TEST(Gpt2Tokenizer, TinyShakespeareTokenCountAndRoundTrip) {
  const std::string text =
      read_file(std::string(tinylm::source_dir()) + "/data/tinyshakespeare.txt");
  const Ids ids = gpt2().encode(text);
  EXPECT_EQ(ids.size(), 338025u);
  EXPECT_EQ(gpt2().decode(ids), text);
  EXPECT_EQ(gpt2().encode_parallel(text, AllowedSpecials::every(), 4), ids);
}

TEST(Gpt2Tokenizer, BengaliRoundTripAndParallel) {
  const std::string text = read_file(std::string(tinylm::source_dir()) + "/data/bangla.txt");
  const Ids ids = gpt2().encode(text);
  EXPECT_EQ(gpt2().decode(ids), text);
  EXPECT_EQ(gpt2().encode_parallel(text, AllowedSpecials::every(), 3), ids);
}

TEST(Gpt2Tokenizer, RoundTripsRandomUnicode) {
  Rng rng(7);
  const char32_t pool[] = {'a',   'Z',   ' ',   ' ',   '\n',   '\t',    '\'',   '1',   '.',   0xE9,
                           0x3B1, 0x416, 0x995, 0x9CD, 0x4E2D, 0x1F600, 0x200D, 0x301, 0x3000};
  for (int t = 0; t < 500; ++t) {
    std::u32string s;
    const int len = static_cast<int>(rng.below(40));
    for (int i = 0; i < len; ++i) s += pool[rng.below(std::size(pool))];
    std::string text;
    for (char32_t c : s) utf8_append(text, c);
    EXPECT_EQ(gpt2().decode(gpt2().encode(text)), text);
  }
}

TEST(Gpt2Tokenizer, DecodeReplacesInvalidUtf8LikeTiktoken) {
  // Token 447 is the single byte 0xE2 ... look the byte tokens up instead of hard-coding.
  const auto& v = gpt2().vocab();
  const auto byte = [&](unsigned char b) { return static_cast<int32_t>(v.byte_id[b]); };
  EXPECT_EQ(gpt2().decode({byte(0xE2), byte(0x82)}), "\xEF\xBF\xBD");  // truncated: one
  EXPECT_EQ(gpt2().decode({byte(0xE2), byte(0x82), byte('a')}),
            "\xEF\xBF\xBD"
            "a");
  EXPECT_EQ(gpt2().decode({byte(0xFF), byte(0x80)}), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(gpt2().decode({byte(0xED), byte(0xA0), byte(0x80)}),  // surrogate: three
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(gpt2().decode({byte(0xF0), byte(0x9F), byte(0x98)}), "\xEF\xBF\xBD");
  EXPECT_EQ(gpt2().decode_bytes({byte(0xE2), byte(0x82)}), "\xE2\x82");
}

TEST(Gpt2Tokenizer, RejectsBadInput) {
  EXPECT_THROW(gpt2().decode({50257}), InputError);
  EXPECT_THROW(gpt2().decode({-1}), InputError);
  try {
    gpt2().encode("ok \xC3(");
    FAIL() << "invalid UTF-8 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("byte 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpt2().encode("<|endoftext|>\xED\xA0\x80"), InputError);  // surrogate
}

TEST(Gpt2Tokenizer, CheckReportsMismatchesAndMalformedLines) {
  const BpeCheckResult r = check_jsonl(gpt2(),
                                       "{\"text\":\"Hello world\",\"ids\":[15496,995]}\n\n"
                                       "{\"text\":\"Hello world\",\"ids\":[1]}\n",
                                       "x.jsonl");
  EXPECT_EQ(r.passed, 1u);
  EXPECT_EQ(r.failed, 1u);
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_EQ(r.mismatches[0].line, 3u);
  EXPECT_THROW(check_jsonl(gpt2(), "{\"text\": 1}", "x"), InputError);
  EXPECT_THROW(check_jsonl(gpt2(), "not json", "x"), InputError);
}

}  // namespace
}  // namespace tinylm
