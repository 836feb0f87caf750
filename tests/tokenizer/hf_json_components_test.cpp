// The parts of the tokenizer.json reader on their own: NFC, the regex rewriting to
// JavaScript's meaning, and the pre-tokenizers' cuts (Split behaviors, Metaspace, Digits).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "tokenizer/hf_json_pretokenizer.h"
#include "tokenizer/hf_json_regex.h"
#include "tokenizer/hf_json_unicode.h"

namespace tinylm {
namespace {

std::vector<std::string> hf_cut(const nlohmann::json& pre, std::string_view text,
                                bool first = true) {
  const HfPreTokenizer p(pre, "t.json: pre_tokenizer");
  HfWords words;
  p.split(text, first, words);
  std::vector<std::string> out;
  for (size_t i = 0; i < words.spans.size(); ++i) out.emplace_back(words.word(i));
  return out;
}

nlohmann::json hf_split(const std::string& behavior, bool invert = false) {
  return {{"type", "Split"},
          {"pattern", {{"String", "-"}}},
          {"behavior", behavior},
          {"invert", invert}};
}

TEST(HfJsonNfc, ComposesReordersAndLeavesPlainTextAlone) {
  EXPECT_EQ(nfc("plain ASCII, Latin-1 caf\u00e9"), "plain ASCII, Latin-1 caf\u00e9");
  EXPECT_EQ(nfc("e\u0301"), "\u00e9");
  EXPECT_EQ(nfc("\u1100\u1161\u11a8"), "\uac01");  // Hangul jamo L V T
  EXPECT_EQ(nfc("o\u0323\u0302"), "\u1ed9");
  EXPECT_EQ(nfc("o\u0302\u0323"), "\u1ed9");        // marks reordered by class, then composed
  EXPECT_EQ(nfc("a\u0301\u0316"), "\u00e1\u0316");  // 0316 (220) does not block 0301 (230)
  EXPECT_EQ(nfc("\u212b"), "\u00c5");               // a singleton decomposition
  EXPECT_EQ(nfc("\u0344"), "\u0308\u0301");         // a non-starter that never recomposes
  EXPECT_EQ(nfc("\u0958"), "\u0915\u093c");         // a composition exclusion
}

TEST(HfJsonRegex, SpeaksJavaScriptsUnicodeAndClasses) {
  std::vector<std::pair<size_t, size_t>> m;
  HfRegex("\\p{L}+", true).find_all("a\U00031350b 1", m);  // CJK Ext. H: Unicode 15
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], (std::pair<size_t, size_t>{0, 6}));
  m.clear();
  HfRegex("\\s+", true).find_all("a\u0085b\ufeffc", m);  // JavaScript: FEFF yes, 0085 no
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].first, 4u);
  m.clear();
  HfRegex("(?i:'s|'t|'re|'ve|'m|'ll|'d)", true).find_all("it'S we'LL", m);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(HfRegex("\\u00e9|\\u{1F600}", true).replace_all("caf\u00e9 \U0001F600", "_"), "caf_ _");
  EXPECT_EQ(HfRegex("a.c", true).replace_all("abc a\nc", "_"), "_ a\nc");
  EXPECT_EQ(HfRegex("a+b?", false).replace_all("a+b? aab", "_"), "_ aab");  // a String pattern
  EXPECT_NE(testing::input_error([] { HfRegex("(unclosed", true); }).find("does not compile"),
            std::string::npos);
}

TEST(HfJsonPreTokenizer, SplitBehaviorsAsHuggingFaceDefinesThem) {
  using V = std::vector<std::string>;
  EXPECT_EQ(hf_cut(hf_split("Isolated"), "a-b--c"), (V{"a", "-", "b", "-", "-", "c"}));
  EXPECT_EQ(hf_cut(hf_split("Removed"), "a-b--c"), (V{"a", "b", "c"}));
  EXPECT_EQ(hf_cut(hf_split("MergedWithPrevious"), "a-b--c"), (V{"a-", "b-", "-", "c"}));
  EXPECT_EQ(hf_cut(hf_split("MergedWithNext"), "a-b--c"), (V{"a", "-b", "-", "-c"}));
  EXPECT_EQ(hf_cut(hf_split("Contiguous"), "a-b--c"), (V{"a", "-", "b", "--", "c"}));
  EXPECT_EQ(hf_cut(hf_split("Removed", true), "a-b--c"), (V{"-", "-", "-"}));
}

TEST(HfJsonPreTokenizer, MetaspaceAndByteLevel) {
  using V = std::vector<std::string>;
  const nlohmann::json meta = {{"type", "Metaspace"},
                               {"replacement", "\u2581"},
                               {"prepend_scheme", "first"},
                               {"split", true}};
  EXPECT_EQ(hf_cut(meta, "hey  you"), (V{"\u2581hey", "\u2581", "\u2581you"}));
  EXPECT_EQ(hf_cut(meta, "hey", false), (V{"hey"}));  // not the first stretch of text
  const nlohmann::json bytes = {{"type", "ByteLevel"}, {"add_prefix_space", true}};
  EXPECT_EQ(hf_cut(bytes, "Hi there's 42"), (V{" Hi", " there", "'s", " 42"}));
  EXPECT_TRUE(HfPreTokenizer(bytes, "t").byte_level());
  const nlohmann::json late = {{"type", "Sequence"},
                               {"pretokenizers", {bytes, hf_split("Isolated")}}};
  EXPECT_NE(testing::input_error([&] {
              HfPreTokenizer(late, "t.json: pre_tokenizer");
            }).find("ByteLevel must be the last"),
            std::string::npos);
  EXPECT_NE(testing::input_error([] {
              HfPreTokenizer({{"type", "Whitespace"}}, "t.json: pre_tokenizer");
            }).find("t.json: pre_tokenizer: unsupported pre-tokenizer type \"Whitespace\""),
            std::string::npos);
}

nlohmann::json hf_digits(bool individual) {
  return {{"type", "Digits"}, {"individual_digits", individual}};
}

// SmolLM2's pre-tokenizer: Digits, then ByteLevel's pattern on each of its words.
nlohmann::json hf_smollm2_pre() {
  const nlohmann::json bytes = {{"type", "ByteLevel"},
                                {"add_prefix_space", false},
                                {"trim_offsets", true},
                                {"use_regex", true}};
  return {{"type", "Sequence"}, {"pretokenizers", {hf_digits(true), bytes}}};
}

// Expected words from transformers.js 3.7.2's DigitsPreTokenizer and its Sequence.
TEST(HfJsonPreTokenizer, DigitsCutsAsciiDigitsAsTransformersJs) {
  using V = std::vector<std::string>;
  EXPECT_EQ(hf_cut(hf_digits(true), "Hey 123 friend!"), (V{"Hey ", "1", "2", "3", " friend!"}));
  EXPECT_EQ(hf_cut(hf_digits(false), "Hey 123 friend!"), (V{"Hey ", "123", " friend!"}));
  EXPECT_EQ(hf_cut({{"type", "Digits"}}, "a1b22"), (V{"a", "1", "b", "22"}));  // runs by default
  EXPECT_EQ(hf_cut(hf_digits(true), "0 9"), (V{"0", " ", "9"}));
  EXPECT_EQ(hf_cut(hf_digits(true), ""), V{});
  // JavaScript's \d is 0-9: other numerals stay inside their words.
  EXPECT_EQ(hf_cut(hf_digits(true), "x\u00b2\u00bd \u0661\u0662 \u216b\uff11\uff123"),
            (V{"x\u00b2\u00bd \u0661\u0662 \u216b\uff11\uff12", "3"}));
  EXPECT_NE(testing::input_error([] {
              HfPreTokenizer({{"type", "Digits"}, {"individual_digits", "yes"}}, "t.json: p");
            }).find("\"individual_digits\" must be true or false"),
            std::string::npos);
}

TEST(HfJsonPreTokenizer, ByteLevelAfterDigitsCutsEachDigitsWordAlone) {
  using V = std::vector<std::string>;
  const nlohmann::json pre = hf_smollm2_pre();
  // GPT-2's pattern over the whole text would give "\n", "\n", "1" and " ", " 12".
  EXPECT_EQ(hf_cut(pre, "\n\n1"), (V{"\n\n", "1"}));
  EXPECT_EQ(hf_cut(pre, "  42"), (V{"  ", "4", "2"}));
  EXPECT_EQ(hf_cut(pre, "a  12\n\n3 \u00bd"), (V{"a", "  ", "1", "2", "\n\n", "3", " \u00bd"}));
  EXPECT_EQ(hf_cut(pre, "Hey 123 friend!"), (V{"Hey", " ", "1", "2", "3", " friend", "!"}));
  EXPECT_EQ(hf_cut(pre, "x\u00b2\u00bd \u0661\u0662 \u216b\uff11\uff123"),
            (V{"x", "\u00b2\u00bd", " \u0661\u0662", " \u216b\uff11\uff12", "3"}));
  EXPECT_TRUE(HfPreTokenizer(pre, "t").byte_level());
}

}  // namespace
}  // namespace tinylm
