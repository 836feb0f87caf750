// The GPT-2 file format: byte alphabet, and loaders that reject malformed files with a
// message naming the file (and line).
#include "tokenizer/bpe_vocab.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tokenizer/bpe_merge.h"
#include "util/error.h"
#include "util/rng.h"

namespace tinylm {
namespace {

TEST(BpeVocab, ByteToUnicodeIsGpt2s) {
  const auto& t = byte_to_unicode();
  EXPECT_EQ(t['!'], U'!');
  EXPECT_EQ(t[' '], 0x120u);   // 'Ġ'
  EXPECT_EQ(t['\n'], 0x10Au);  // 'Ċ'
  EXPECT_EQ(t[0], 0x100u);
  EXPECT_EQ(t[0xAD], 0x143u);
  for (int b = 0; b < 256; ++b) EXPECT_EQ(unicode_to_byte(t[b]), b);
  EXPECT_EQ(unicode_to_byte(0x144), -1);
}

// A tiny vocabulary: the 256 bytes, merges "a b" -> 256 and "ab c" -> 257, one special.
std::string tiny_encoder(const std::string& extra = "") {
  nlohmann::json j;
  for (int b = 0; b < 256; ++b) j[bytes_to_token_text(std::string(1, static_cast<char>(b)))] = b;
  j["ab"] = 256;
  j["abc"] = 257;
  j["<|endoftext|>"] = 258;
  std::string s = j.dump();
  if (!extra.empty()) s.insert(s.size() - 1, "," + extra);
  return s;
}
const char* kTinyMerges = "#version: 0.2\na b\nab c\n";

std::string error_of(const std::string& enc, const std::string& merges) {
  try {
    parse_bpe_vocab(enc, merges, "enc.json", "merges.bpe");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(BpeVocab, ParsesATinyVocabulary) {
  const BpeVocab v = parse_bpe_vocab(tiny_encoder(), kTinyMerges);
  EXPECT_EQ(v.size(), 259);
  EXPECT_EQ(v.n_merges, 2);
  ASSERT_EQ(v.specials.size(), 1u);
  EXPECT_EQ(v.specials[0].second, 258);
  std::vector<int32_t> out;
  bpe_merge_piece(v, "abcab", out);
  EXPECT_EQ(out, (std::vector<int32_t>{257, 256}));
}

TEST(BpeVocab, RejectsMalformedFiles) {
  EXPECT_NE(error_of("{", kTinyMerges).find("enc.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[]", kTinyMerges).find("enc.json"), std::string::npos);
  EXPECT_NE(error_of(tiny_encoder("\"zz\": 9999"), kTinyMerges).find("outside"), std::string::npos);
  EXPECT_NE(error_of(tiny_encoder("\"zz\": 1"), kTinyMerges).find("used twice"), std::string::npos);
  EXPECT_NE(error_of(tiny_encoder("\"zz\": \"x\""), kTinyMerges).find("integer"),
            std::string::npos);
  EXPECT_NE(error_of(tiny_encoder("\"a b\": 259"), kTinyMerges).find("alphabet"),
            std::string::npos);
  EXPECT_NE(error_of(tiny_encoder(), "#version: 0.2\na b\nabc\n").find("merges.bpe:3"),
            std::string::npos);
  EXPECT_NE(error_of(tiny_encoder(), "#version: 0.2\na b\nab d\n").find("merges.bpe:3"),
            std::string::npos);
  EXPECT_NE(error_of(tiny_encoder(), "#version: 0.2\nab c\n").find("merges.bpe:2"),
            std::string::npos);
  EXPECT_NE(error_of(tiny_encoder(), "#version: 0.2\na b\nab c\nx y\n").find("merges.bpe:4"),
            std::string::npos);
}

TEST(BpeVocab, LoaderSurvivesRandomCorruption) {
  const std::string enc = tiny_encoder();
  Rng rng(3);
  for (int t = 0; t < 300; ++t) {
    std::string e = enc, m = kTinyMerges;
    std::string& target = rng.below(2) ? e : m;
    for (int k = 0; k < 3; ++k)
      target[rng.below(target.size())] = static_cast<char>(rng.below(256));
    try {
      parse_bpe_vocab(e, m);
    } catch (const InputError&) {
    }
  }
}

}  // namespace
}  // namespace tinylm
