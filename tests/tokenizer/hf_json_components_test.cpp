// The parts of the tokenizer.json reader on their own: NFC, the regex rewriting to
// JavaScript's meaning, and the pre-tokenizers' cuts (Split behaviors, Metaspace).
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

}  // namespace
}  // namespace tinylm
