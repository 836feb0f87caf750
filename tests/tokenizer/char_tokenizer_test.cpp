// CharTokenizer: vocabulary, round trips (ASCII, Shakespeare, Bengali), JSON, errors.
#include "tokenizer/char_tokenizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "common/input_error.h"
#include "util/error.h"
#include "util/files.h"
#include "util/utf8.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

std::string data_file(const std::string& name) {
  return read_file(std::string(tinylm::source_dir()) + "/data/" + name);
}

using testing::input_error;

TEST(CharTokenizer, VocabularyIsSortedUniqueCodePoints) {
  const CharTokenizer tok = CharTokenizer::from_corpus("hello world");
  EXPECT_EQ(tok.kind(), "char");
  EXPECT_EQ(tok.vocab_size(), 8);  // ' ' d e h l o r w
  EXPECT_EQ(tok.chars(), (std::vector<char32_t>{' ', 'd', 'e', 'h', 'l', 'o', 'r', 'w'}));
  EXPECT_EQ(tok.encode("hello"), (std::vector<int32_t>{3, 2, 4, 4, 5}));
  EXPECT_EQ(tok.decode({7, 5, 6, 4, 1}), "world");
  EXPECT_EQ(tok.eot_id(), -1);
}

TEST(CharTokenizer, ShakespeareRoundTrip) {
  const std::string text = data_file("tinyshakespeare.txt");
  const CharTokenizer tok = CharTokenizer::from_corpus(text);
  EXPECT_EQ(tok.vocab_size(), 65);  // nanoGPT's shakespeare_char vocabulary
  EXPECT_EQ(tok.chars().front(), U'\n');
  EXPECT_EQ(tok.chars()[1], U' ');
  const std::vector<int32_t> ids = tok.encode(text);
  EXPECT_EQ(ids.size(), text.size());  // ASCII: one id per byte
  EXPECT_EQ(tok.decode(ids), text);
}

TEST(CharTokenizer, BengaliIsCodePointsNotBytes) {
  const std::string text = data_file("bangla.txt");
  const CharTokenizer tok = CharTokenizer::from_corpus(text);
  EXPECT_EQ(tok.vocab_size(), 92);  // data/README.md
  const std::vector<int32_t> ids = tok.encode(text);
  EXPECT_EQ(ids.size(), 455881u);  // characters, not 1,206,741 bytes
  EXPECT_EQ(tok.decode(ids), text);
  // The chars are sorted by code point and include Bengali letters and ZWNJ.
  EXPECT_TRUE(std::is_sorted(tok.chars().begin(), tok.chars().end()));
  EXPECT_GE(tok.id_of(U'\u0995'), 0);  // ক
  EXPECT_GE(tok.id_of(U'\u200C'), 0);  // ZWNJ
  EXPECT_EQ(tok.encode("\u0995").size(), 1u);
}

TEST(CharTokenizer, JsonRoundTripSurvivesAnyCharacter) {
  const std::string tricky = "a\"b\\c\n\t\r\x01{}[]\u00e9\u0995\u200c\U0001F600 \x7f";
  const CharTokenizer tok = CharTokenizer::from_corpus(tricky);
  const nlohmann::json j = tok.to_json();
  EXPECT_EQ(j["kind"], "char");
  EXPECT_TRUE(j["chars"].is_array());
  // Through text, as it is stored with a model.
  const CharTokenizer back = CharTokenizer::from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.chars(), tok.chars());
  EXPECT_EQ(back.decode(back.encode(tricky)), tricky);
  EXPECT_EQ(back.encode(tricky), tok.encode(tricky));
}

TEST(CharTokenizer, JsonAcceptsOneStringOfCharacters) {
  const CharTokenizer tok = CharTokenizer::from_json({{"kind", "char"}, {"chars", "ab\u0995\n"}});
  EXPECT_EQ(tok.chars(), (std::vector<char32_t>{'a', 'b', 0x995, '\n'}));
}

TEST(CharTokenizer, MalformedJsonIsInputError) {
  using J = nlohmann::json;
  EXPECT_THROW(CharTokenizer::from_json(J{{"kind", "word"}, {"chars", "ab"}}), InputError);
  EXPECT_THROW(CharTokenizer::from_json(J{{"kind", "char"}}), InputError);
  EXPECT_THROW(CharTokenizer::from_json(J{{"kind", "char"}, {"chars", J::array({"ab"})}}),
               InputError);  // two characters in one entry
  EXPECT_THROW(CharTokenizer::from_json(J{{"kind", "char"}, {"chars", J::array({"a", "a"})}}),
               InputError);  // duplicate
  EXPECT_THROW(CharTokenizer::from_json(J{{"kind", "char"}, {"chars", J::array({1})}}), InputError);
  EXPECT_THROW(CharTokenizer::from_json(J{{"kind", "char"}, {"chars", ""}}), InputError);
  EXPECT_THROW(CharTokenizer::from_json(J::array()), InputError);
}

TEST(CharTokenizer, UnknownCharacterIsNamedWithItsPosition) {
  const CharTokenizer tok = CharTokenizer::from_corpus("abc ");
  const std::string msg = input_error([&] { tok.encode("ab \u00e9c"); });
  EXPECT_NE(msg.find("'\u00e9'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("U+00E9"), std::string::npos) << msg;
  EXPECT_NE(msg.find("character 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("byte 3"), std::string::npos) << msg;

  // A control character is shown by its code only.
  const std::string nl = input_error([&] { tok.encode("a\nb"); });
  EXPECT_NE(nl.find("U+000A"), std::string::npos) << nl;
  EXPECT_NE(nl.find("character 1"), std::string::npos) << nl;

  // The first unknown character is reported; positions count characters, not bytes.
  const std::string emoji = input_error([&] { tok.encode("ab\U0001F600\u0995"); });
  EXPECT_NE(emoji.find("U+1F600"), std::string::npos) << emoji;
  EXPECT_NE(emoji.find("character 2 (byte 2)"), std::string::npos) << emoji;
  const std::string bengali = input_error([&] { tok.encode("\u0995a\u0996"); });
  EXPECT_NE(bengali.find("'\u0995' (U+0995) at character 0"), std::string::npos) << bengali;
}

TEST(CharTokenizer, InvalidUtf8NamesTheByteOffset) {
  const CharTokenizer tok = CharTokenizer::from_corpus("abc");
  const std::string msg = input_error([&] { tok.encode(std::string("ab\xC3(", 4)); });
  EXPECT_NE(msg.find("invalid UTF-8 at byte 2"), std::string::npos) << msg;
  const std::string corpus = input_error([] { CharTokenizer::from_corpus("ok\xFF"); });
  EXPECT_NE(corpus.find("invalid UTF-8 at byte 2"), std::string::npos) << corpus;
  EXPECT_THROW(CharTokenizer::from_corpus(""), InputError);
}

TEST(CharTokenizer, DecodeRejectsIdsOutsideTheVocabulary) {
  const CharTokenizer tok = CharTokenizer::from_corpus("ab");
  EXPECT_THROW(tok.decode({2}), InputError);
  EXPECT_THROW(tok.decode({-1}), InputError);
  EXPECT_EQ(tok.decode({}), "");
}

}  // namespace
}  // namespace tinylm
