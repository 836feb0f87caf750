// A char vocabulary spelled as byte-level BPE and read back (tokenizer/char_as_bpe.h):
// the characters come back from their own spelling, with pads after them; anything that
// is not exactly that spelling (a BPE vocabulary, a missing or extra merge, a token of
// two characters, a token outside GPT-2's alphabet, invalid UTF-8) is not a char vocabulary.
#include "tokenizer/char_as_bpe.h"

#include <gtest/gtest.h>

namespace tinylm {
namespace {

const std::vector<char32_t> kChars = {U'\n',     U' ',      U'a',         U'\u00e9',
                                      U'\u0995', U'\u0996', U'\U0001F600'};

TEST(CharAsBpe, TheCharactersComeBackFromTheirSpelling) {
  BpeSpelling s = char_vocab_as_bpe(kChars);
  ASSERT_EQ(s.tokens.size(), kChars.size());
  // é: 1 merge; ক and খ share E0 A6: 1 + 2; 😀: 3
  EXPECT_EQ(s.merges.size(), 7u);
  s.tokens.push_back("[PAD7]");
  EXPECT_EQ(chars_of_bpe_spelling(s.tokens, s.merges, kChars.size()), kChars);
}

TEST(CharAsBpe, AnythingElseIsNotACharVocabulary) {
  const BpeSpelling s = char_vocab_as_bpe(kChars);
  const size_t n = kChars.size();
  auto merges = s.merges;
  merges.pop_back();
  EXPECT_FALSE(chars_of_bpe_spelling(s.tokens, merges, n));  // a merge missing
  merges = s.merges;
  merges.push_back("a a");
  EXPECT_FALSE(chars_of_bpe_spelling(s.tokens, merges, n));  // one too many
  auto tokens = s.tokens;
  tokens[2] = "ab";
  EXPECT_FALSE(chars_of_bpe_spelling(tokens, s.merges, n));  // two characters
  tokens[2] = "\xe2\x82\xac";                                // € is not in the alphabet
  EXPECT_FALSE(chars_of_bpe_spelling(tokens, s.merges, n));
  tokens[2] = std::string(1, static_cast<char>(0xff));
  EXPECT_FALSE(chars_of_bpe_spelling(tokens, s.merges, n));  // not UTF-8
  tokens[2] = s.tokens[3];
  EXPECT_FALSE(chars_of_bpe_spelling(tokens, s.merges, n));  // a character twice
  // GPT-2's layout: single bytes from 0, some of them not characters on their own
  EXPECT_FALSE(chars_of_bpe_spelling({"!", "\xc2\xa1"}, {}, 2));
}

}  // namespace
}  // namespace tinylm
