// GPT-2 pre-tokenisation: the hand-written matcher against PCRE2 on random strings, and
// the cases that decide tiktoken compatibility.
#include "tokenizer/bpe_pretokenize.h"

#include <gtest/gtest.h>

#include "tokenizer/bpe_pretokenize_pcre.h"
#include "util/rng.h"
#include "util/utf8.h"

namespace tinylm {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(Gpt2Pretokenize, SplitsLikeTheRegex) {
  EXPECT_EQ(gpt2_pieces("Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(gpt2_pieces("a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(gpt2_pieces("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
  EXPECT_EQ(gpt2_pieces("a \n b"), (Pieces{"a", " \n", " b"}));
  EXPECT_EQ(gpt2_pieces("trailing   "), (Pieces{"trailing", "   "}));
  EXPECT_EQ(gpt2_pieces("I'm they'll 'S it's"),
            (Pieces{"I", "'m", " they", "'ll", " '", "S", " it", "'s"}));
  EXPECT_EQ(gpt2_pieces("x?'s"), (Pieces{"x", "?'", "s"}));
  EXPECT_EQ(gpt2_pieces("abc123 456!!"), (Pieces{"abc", "123", " 456", "!!"}));
  EXPECT_EQ(gpt2_pieces(" "), (Pieces{" "}));
  EXPECT_EQ(gpt2_pieces(""), (Pieces{}));
  EXPECT_EQ(gpt2_pieces("\xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80"),  // 中文 😀
            (Pieces{"\xE4\xB8\xAD\xE6\x96\x87", " \xF0\x9F\x98\x80"}));
}

TEST(Gpt2Pretokenize, UnicodeClasses) {
  EXPECT_EQ(char_class(U'a'), CharClass::kLetter);
  EXPECT_EQ(char_class(0x995), CharClass::kLetter);  // Bengali KA
  EXPECT_EQ(char_class(0x9BE), CharClass::kOther);   // Bengali vowel sign AA (Mc)
  EXPECT_EQ(char_class(0x9E6), CharClass::kNumber);  // Bengali digit zero
  EXPECT_EQ(char_class(0xBD), CharClass::kNumber);   // ½ (No)
  EXPECT_EQ(char_class(0x85), CharClass::kSpace);    // NEL is White_Space
  EXPECT_EQ(char_class(0x180E), CharClass::kOther);  // not White_Space since Unicode 6.3
  EXPECT_EQ(char_class(0x200B), CharClass::kOther);  // zero width space is not \s
  EXPECT_EQ(char_class(0x3000), CharClass::kSpace);
  EXPECT_EQ(char_class(0x1F600), CharClass::kOther);
}

TEST(Gpt2Pretokenize, RejectsInvalidUtf8) {
  EXPECT_THROW(gpt2_pieces("a\x80"), InputError);
  EXPECT_THROW(gpt2_pieces("\xC0\xAF"), InputError);          // overlong
  EXPECT_THROW(gpt2_pieces("\xED\xA0\x80"), InputError);      // surrogate
  EXPECT_THROW(gpt2_pieces("\xF4\x90\x80\x80"), InputError);  // above U+10FFFF
  EXPECT_THROW(gpt2_pieces("ab \xE4\xB8"), InputError);       // truncated
}

// Random strings from characters whose classes are the same in every Unicode version
// since 6.3 (so PCRE2's tables and ours agree).
TEST(Gpt2Pretokenize, MatchesPcre2OnRandomStrings) {
  const PcreSplitter pcre;
  const char32_t pool[] = {
      'a',     'b',     'Z',    's',   't',    'r',    'e',     'v',     'm',    'l',    'd',
      'S',     'L',     '\'',   '\'',  '0',    '7',    ' ',     ' ',     ' ',    '\n',   '\t',
      '\r',    0x0B,    0x0C,   '.',   ',',    '!',    '?',     '-',     '<',    '|',    '>',
      0x85,    0xA0,    0xBD,   0xB2,  0xE9,   0xC6,   0xD7,    0x3B1,   0x3A9,  0x416,  0x44F,
      0x995,   0x9BE,   0x9CD,  0x9E6, 0x200C, 0x200D, 0x2003,  0x2028,  0x3000, 0x4E2D, 0x3042,
      0x1F600, 0x1F469, 0xFE0F, 0x301, 0x660,  0x2167, 0x10400, 0x1D7CE, 0xFFFD, 0x180E, 0x200B};
  Rng rng(2024);
  for (int t = 0; t < 20000; ++t) {
    std::string text;
    const int len = static_cast<int>(rng.below(24));
    for (int i = 0; i < len; ++i) utf8_append(text, pool[rng.below(std::size(pool))]);
    ASSERT_EQ(gpt2_pieces(text), pcre.split(text)) << "text: " << text;
  }
}

}  // namespace
}  // namespace tinylm
