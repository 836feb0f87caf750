// The pre-tokeniser choice: letters-marks keeps combining marks with their letters (Bengali
// words stay whole), cuts mark-free text exactly as GPT-2 does, lets bpe-train go past the
// vocabulary GPT-2's pattern caps, and travels with the vocabulary folder.
#include "tokenizer/bpe_pretokenizer_choice.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/input_error.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/load.h"
#include "util/files.h"
#include "util/rng.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

std::vector<std::string> pieces(Pretokenizer p, std::string_view text) {
  std::vector<std::string> out;
  split_pieces(p, text, [&](std::string_view piece) { out.emplace_back(piece); });
  return out;
}

TEST(Pretokenizer, LettersMarksKeepsBengaliWordsWhole) {
  const std::string text = "আমি বাংলায় গান গাই";  // vowel signs, anusvara, nukta-free
  EXPECT_EQ(pieces(Pretokenizer::LettersMarks, text),
            (std::vector<std::string>{"আমি", " বাংলায়", " গান", " গাই"}));
  // GPT-2's pattern breaks at every vowel sign (\p{M} is not \p{L}).
  const auto gpt2 = pieces(Pretokenizer::Gpt2, text);
  EXPECT_GT(gpt2.size(), 4u);
  EXPECT_EQ(gpt2[0], "আম");  // "আমি": the vowel sign ি is cut off
  EXPECT_EQ(gpt2[1], "ি");
  // Accents written as combining marks: "e" + U+0301.
  EXPECT_EQ(pieces(Pretokenizer::LettersMarks, "cafe\xCC\x81 ok"),
            (std::vector<std::string>{"cafe\xCC\x81", " ok"}));
}

TEST(Pretokenizer, LettersMarksEqualsGpt2WithoutMarks) {
  const std::vector<std::string> cases = {"Hello, world! It's 2024: we'll see 123 cats.",
                                          "  leading   spaces\n\n\tand tabs  ",
                                          "don't you're I've he'd they'll I'm",
                                          "emoji 😀😀 and ümlaut café (precomposed)",
                                          "a\u00a0b\u3000c",
                                          "!!!???...---",
                                          "x<|endoftext|>y",
                                          "日本語のテキスト 123abc"};
  for (const auto& t : cases)
    EXPECT_EQ(pieces(Pretokenizer::LettersMarks, t), pieces(Pretokenizer::Gpt2, t)) << t;
  // Random mark-free ASCII and a few multi-byte letters.
  const std::string alphabet[] = {"a", "Z", " ", "  ", "\n", "'",  "s",  "1",   "9",
                                  ",", "-", "é", "ß",  "я",  "中", "\t", "'ll", "😀"};
  Rng rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string t;
    for (int j = 0; j < 30; ++j) t += alphabet[rng.below(std::size(alphabet))];
    ASSERT_EQ(pieces(Pretokenizer::LettersMarks, t), pieces(Pretokenizer::Gpt2, t)) << t;
  }
}

TEST(Pretokenizer, NamesAndErrors) {
  EXPECT_EQ(parse_pretokenizer("gpt2"), Pretokenizer::Gpt2);
  EXPECT_EQ(parse_pretokenizer("letters-marks"), Pretokenizer::LettersMarks);
  EXPECT_NE(
      testing::input_error([] { parse_pretokenizer("bert"); }).find("unknown pre-tokeniser 'bert'"),
      std::string::npos);
  EXPECT_FALSE(testing::input_error([] { letters_marks_pieces("ab\xFF"); }).empty());
}

// GPT-2's pattern runs out of pairs to merge on Bengali well before letters-marks does,
// and a folder trained with letters-marks encodes with it (round trip, fewer tokens).
TEST(Pretokenizer, BengaliVocabularyAndFolderRoundTrip) {
  std::string corpus = read_file(std::string(tinylm::source_dir()) + "/data/bangla.txt");
  corpus.resize(200000);
  while (!corpus.empty() && (static_cast<unsigned char>(corpus.back()) & 0xC0) == 0x80)
    corpus.pop_back();
  corpus.pop_back();  // the lead byte of the cut character
  const BpeTrainResult gpt2 = train_bpe(corpus, {6000, 2, Pretokenizer::Gpt2});
  const BpeTrainResult marks = train_bpe(corpus, {6000, 2, Pretokenizer::LettersMarks});
  EXPECT_LT(gpt2.tokens.size(), 6000u);  // capped: no pair left inside GPT-2's pieces
  EXPECT_EQ(marks.tokens.size(), 6000u);
  EXPECT_LT(marks.n_pieces, gpt2.n_pieces);

  const std::string dir =
      (std::filesystem::temp_directory_path() / ("tinylm-pretok-" + std::to_string(::getpid())))
          .string();
  write_bpe_vocab(marks, dir);
  write_pretokenizer(dir, Pretokenizer::LettersMarks);
  const BpeTokenizer tok(dir, "bpe");
  EXPECT_EQ(tok.pretokenizer(), Pretokenizer::LettersMarks);
  const std::string sentence = "আমি বাংলায় গান গাই।";
  const std::vector<int32_t> ids = tok.encode(sentence);
  EXPECT_EQ(tok.decode(ids), sentence);
  // The same vocabulary cut with GPT-2's pattern: words broken at the marks, more tokens.
  const BpeTokenizer as_gpt2(load_bpe_vocab(dir), "bpe", "");
  EXPECT_EQ(as_gpt2.pretokenizer(), Pretokenizer::Gpt2);
  EXPECT_LT(ids.size(), as_gpt2.encode(sentence).size());
  write_pretokenizer(dir, Pretokenizer::Gpt2);  // back to GPT-2's cut: the file goes
  EXPECT_EQ(BpeTokenizer(dir, "bpe").pretokenizer(), Pretokenizer::Gpt2);
  std::filesystem::remove_all(dir);
}

// A run stores its tokenizer as JSON: the pre-tokeniser travels in it, so the run cuts text
// the same way from any working folder and after the vocabulary folder is gone.
TEST(Pretokenizer, TravelsInsideTheStoredTokenizer) {
  std::string corpus = read_file(std::string(tinylm::source_dir()) + "/data/bangla.txt");
  corpus.resize(corpus.find('\n', 30000));
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("tinylm-pretok-json-" + std::to_string(::getpid())))
                              .string();
  write_bpe_vocab(train_bpe(corpus, {1000, 2, Pretokenizer::LettersMarks}), dir);
  write_pretokenizer(dir, Pretokenizer::LettersMarks);
  const BpeTokenizer from_folder(dir, "bpe");
  const nlohmann::json stored = from_folder.to_json();
  EXPECT_EQ(stored.value("pretokenizer", ""), "letters-marks");
  std::filesystem::remove_all(dir);

  const std::unique_ptr<Tokenizer> back = tokenizer_from_json(stored);
  const std::string sentence = "আমি বাংলায় গান গাই।";
  EXPECT_EQ(dynamic_cast<const BpeTokenizer&>(*back).pretokenizer(), Pretokenizer::LettersMarks);
  EXPECT_EQ(back->encode(sentence), from_folder.encode(sentence));
  EXPECT_EQ(back->to_json(), stored);
  nlohmann::json bad = stored;
  bad["pretokenizer"] = "gpt4";
  EXPECT_THROW(tokenizer_from_json(bad), InputError);
}

}  // namespace
}  // namespace tinylm
