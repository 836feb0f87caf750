// WordTokenizer: Raschka ch. 2 SimpleTokenizerV2, checked against the book's numbers.
#include "tokenizer/word_tokenizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "util/error.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

std::string verdict() {
  return read_file(std::string(tinylm::source_dir()) + "/data/the-verdict.txt");
}

using Words = std::vector<std::string>;

TEST(WordSplit, MatchesTheChapter2Regex) {
  // Python: [p.strip() for p in re.split(r'([,.:;?_!"()\']|--|\s)', text) if p.strip()]
  EXPECT_EQ(split_words("Hello, world. Is this-- a test?"),
            (Words{"Hello", ",", "world", ".", "Is", "this", "--", "a", "test", "?"}));
  EXPECT_EQ(split_words("  a---b\t\n(c)'d'_e;f:g!\"h\"  "),
            (Words{"a", "--", "-b", "(", "c", ")", "'", "d", "'", "_", "e", ";", "f", ":", "g", "!",
                   "\"", "h", "\""}));
  EXPECT_EQ(split_words("<|endoftext|> x"), (Words{"<|endoftext|>", "x"}));
  EXPECT_EQ(split_words(""), Words{});
  EXPECT_EQ(split_words(" \n\t "), Words{});
}

TEST(WordSplit, UnicodeWhitespaceAsPython) {
  // U+00A0 no-break space, U+3000 ideographic space, U+001F unit separator: str.isspace().
  EXPECT_EQ(split_words("a\u00a0b\u3000c\x1f"
                        "d\u200be"),
            (Words{"a", "b", "c", "d\u200be"}));
  // U+200B (zero width space) is not whitespace to Python, so it stays inside the word.
  EXPECT_TRUE(is_python_space(0x85));
  EXPECT_FALSE(is_python_space(0x200B));
  EXPECT_EQ(split_words("\u0986\u09ae\u09bf, \u09a4\u09c1\u09ae\u09bf"),
            (Words{"\u0986\u09ae\u09bf", ",", "\u09a4\u09c1\u09ae\u09bf"}));
}

TEST(WordSplit, InvalidUtf8NamesTheByteOffset) {
  try {
    split_words("abc \xE2\x82");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid UTF-8 at byte 4"), std::string::npos) << e.what();
  }
}

TEST(WordTokenizer, VerdictCountsFromTheBook) {
  const std::string text = verdict();
  const Words tokens = split_words(text);
  EXPECT_EQ(tokens.size(), 4690u);
  EXPECT_EQ(std::set<std::string>(tokens.begin(), tokens.end()).size(), 1130u);
  EXPECT_EQ(Words(tokens.begin(), tokens.begin() + 10),
            (Words{"I", "HAD", "always", "thought", "Jack", "Gisburn", "rather", "a", "cheap",
                   "genius"}));

  const WordTokenizer tok = WordTokenizer::from_corpus(text);
  EXPECT_EQ(tok.kind(), "word");
  EXPECT_EQ(tok.vocab_size(), 1132);
  EXPECT_EQ(tok.eot_id(), 1130);
  EXPECT_EQ(tok.unk_id(), 1131);
  EXPECT_EQ(tok.words()[1130], "<|endoftext|>");
  EXPECT_EQ(tok.words()[1131], "<|unk|>");
  // The book's vocabulary listing starts ('!', 0), ('"', 1), ("'", 2), ('(', 3), (')', 4).
  EXPECT_EQ(Words(tok.words().begin(), tok.words().begin() + 5), (Words{"!", "\"", "'", "(", ")"}));
  EXPECT_EQ(tok.words()[1129], "yourself");
  EXPECT_EQ(tok.encode(text).size(), 4690u);
}

TEST(WordTokenizer, BookExampleWithUnknownWords) {
  const WordTokenizer tok = WordTokenizer::from_corpus(verdict());
  const std::string text =
      "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace.";
  const std::vector<int32_t> ids = tok.encode(text);
  // The book: [1131, 5, 355, 1126, 628, 975, 10, 1130, 55, 988, 956, 984, 722, 988, 1131, 7]
  EXPECT_EQ(ids, (std::vector<int32_t>{1131, 5, 355, 1126, 628, 975, 10, 1130, 55, 988, 956, 984,
                                       722, 988, 1131, 7}));
  EXPECT_EQ(tok.decode(ids),
            "<|unk|>, do you like tea? <|endoftext|> In the sunlit terraces of the <|unk|>.");
}

TEST(WordTokenizer, DecodeAttachesPunctuationLikeTheBook) {
  const WordTokenizer tok = WordTokenizer::from_corpus(verdict());
  // The book's SimpleTokenizerV1 example round-trips to this text.
  const std::string text =
      "\"It's the last he painted, you know,\" Mrs. Gisburn said with pardonable pride.";
  EXPECT_EQ(tok.decode(tok.encode(text)),
            "\" It' s the last he painted, you know,\" Mrs. Gisburn said with pardonable pride.");
  // ':' ';' '_' '--' keep their space (they are not in the re.sub class); '(' and ')'
  // both attach to the token before them, as in Python.
  const WordTokenizer small = WordTokenizer::from_corpus("a : b ; c -- d _ e ( f )");
  EXPECT_EQ(small.decode(small.encode("a:b;c--d_e(f)")), "a : b ; c -- d _ e( f)");
}

TEST(WordTokenizer, SpecialsInTheCorpusAreNotDuplicated) {
  const WordTokenizer tok = WordTokenizer::from_corpus("b a <|endoftext|> a <|unk|>");
  EXPECT_EQ(tok.words(), (Words{"a", "b", "<|endoftext|>", "<|unk|>"}));
  EXPECT_EQ(tok.encode("a <|endoftext|> zebra"), (std::vector<int32_t>{0, 2, 3}));
}

TEST(WordTokenizer, JsonRoundTrip) {
  const std::string text = verdict();
  const WordTokenizer tok = WordTokenizer::from_corpus(text + " \u0995\u09be\u09b2 \"q\"");
  const WordTokenizer back = WordTokenizer::from_json(nlohmann::json::parse(tok.to_json().dump()));
  EXPECT_EQ(back.words(), tok.words());
  EXPECT_EQ(back.eot_id(), tok.eot_id());
  EXPECT_EQ(back.encode(text), tok.encode(text));
}

TEST(WordTokenizer, MalformedJsonIsInputError) {
  using J = nlohmann::json;
  EXPECT_THROW(WordTokenizer::from_json(J{{"kind", "char"}}), InputError);
  EXPECT_THROW(WordTokenizer::from_json(J{{"kind", "word"}, {"words", J::array({"a"})}}),
               InputError);  // no specials
  EXPECT_THROW(WordTokenizer::from_json(J{
                   {"kind", "word"}, {"words", J::array({"a", "a", "<|endoftext|>", "<|unk|>"})}}),
               InputError);  // duplicate
  EXPECT_THROW(WordTokenizer::from_json(
                   J{{"kind", "word"}, {"words", J::array({"a b", "<|endoftext|>", "<|unk|>"})}}),
               InputError);  // whitespace inside a word
  EXPECT_THROW(WordTokenizer::from_json(J{{"kind", "word"}, {"words", "abc"}}), InputError);
}

TEST(WordTokenizer, Errors) {
  EXPECT_THROW(WordTokenizer::from_corpus(" \n "), InputError);
  const WordTokenizer tok = WordTokenizer::from_corpus("a b");
  EXPECT_THROW(tok.decode({4}), InputError);
  EXPECT_THROW(tok.encode("a \xFF"), InputError);
}

}  // namespace
}  // namespace tinylm
