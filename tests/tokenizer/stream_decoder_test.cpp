// Decoding id by id: what StreamDecoder returns, concatenated, is
// tok.decode(all ids), for every tokenizer kind, with BPE tokens that split UTF-8
// characters and with invalid byte sequences.
#include "tokenizer/stream_decoder.h"

#include <gtest/gtest.h>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/char_tokenizer.h"
#include "tokenizer/word_tokenizer.h"

namespace tinylm {
namespace {

std::string streamed(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  StreamDecoder d(tok);
  std::string out;
  for (int32_t id : ids) out += d.add(id);
  return out + d.finish();
}

TEST(StreamDecoder, BpeEqualsWholeDecodeOnRandomIds) {
  const BpeTokenizer tok;
  uint64_t s = 12345;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int32_t> ids;
    const int n = 1 + trial % 40;
    for (int i = 0; i < n; ++i) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      // Mostly single bytes (ids < 256 include the UTF-8 lead and continuation bytes).
      ids.push_back(static_cast<int32_t>((s >> 33) % (trial % 2 ? 256 : 50257)));
    }
    ASSERT_EQ(streamed(tok, ids), tok.decode(ids)) << "trial " << trial;
  }
}

TEST(StreamDecoder, HoldsBackAnUnfinishedCharacter) {
  const BpeTokenizer tok;
  const auto byte = [&](unsigned char b) { return static_cast<int32_t>(tok.vocab().byte_id[b]); };
  // "a€" fed as byte tokens (the euro sign is E2 82 AC): it shows only once whole.
  StreamDecoder d(tok);
  EXPECT_EQ(d.add(byte('a')), "a");
  EXPECT_EQ(d.add(byte(0xE2)), "");
  EXPECT_EQ(d.add(byte(0x82)), "");
  EXPECT_EQ(d.add(byte(0xAC)), "\xE2\x82\xAC");
  EXPECT_EQ(d.finish(), "");
  // An unfinished sequence at the end becomes U+FFFD, as decode does.
  StreamDecoder cut(tok);
  EXPECT_EQ(cut.add(byte(0xE2)), "");
  EXPECT_EQ(cut.finish(), "\xEF\xBF\xBD");
  // An invalid byte is final at once.
  StreamDecoder bad(tok);
  EXPECT_EQ(bad.add(byte(0xFF)), "\xEF\xBF\xBD");
}

TEST(StreamDecoder, CharAndWordTokenizers) {
  const CharTokenizer chars = CharTokenizer::from_corpus("hello, w\xC3\xB6rld!");
  const std::vector<int32_t> a = chars.encode("w\xC3\xB6rld, hello!");
  EXPECT_EQ(streamed(chars, a), chars.decode(a));
  const WordTokenizer words = WordTokenizer::from_corpus("Hello, world. It is a test; it is!");
  const std::vector<int32_t> b = words.encode("It is a test, world. Hello!");
  EXPECT_EQ(streamed(words, b), words.decode(b));
}

// Ids that continue a prompt: prompt + decode_generated(new ids, after_text) is the decode of them
// all, so a word tokenizer's first new word is not glued to the prompt's last one.
TEST(StreamDecoder, AfterTextJoinsTheFirstIdAsALaterOne) {
  const WordTokenizer words =
      WordTokenizer::from_corpus("I had always longed for a picture, then.");
  const std::vector<int32_t> prompt = words.encode("I had always");
  for (const char* next : {"longed for a picture", ", then.", "picture"}) {
    const std::vector<int32_t> added = words.encode(next);
    std::vector<int32_t> all = prompt;
    all.insert(all.end(), added.begin(), added.end());
    EXPECT_EQ(words.decode(prompt) + decode_generated(words, added, true), words.decode(all))
        << next;
    StreamDecoder d(words, /*after_text=*/true);
    std::string shown = words.decode(prompt);
    for (int32_t id : added) shown += d.add(id);
    EXPECT_EQ(shown + d.finish(), words.decode(all)) << next;
  }
  const BpeTokenizer bpe;
  const std::vector<int32_t> ids = bpe.encode(" world, caf\xC3\xA9");
  EXPECT_EQ(decode_generated(bpe, ids, true), bpe.decode(ids));
}

// A model padded past its tokenizer (GPT-2's 50257 ids in 50304 rows, as nanoGPT) may
// generate a padding id: it adds no text, and the id after it is joined as it would be
// without it (a word tokenizer's first word gets no space before it).
TEST(StreamDecoder, PaddingIdsAddNothing) {
  const BpeTokenizer bpe;
  const std::vector<int32_t> ids = bpe.encode(" caf\xC3\xA9 world");
  std::vector<int32_t> padded = {50300};
  for (int32_t id : ids) padded.push_back(id), padded.push_back(50257);
  EXPECT_FALSE(bpe.spells(50257));
  EXPECT_TRUE(bpe.spells(50256));
  EXPECT_EQ(bpe.generated_piece(50303, false), "");
  EXPECT_EQ(streamed(bpe, padded), bpe.decode(ids));
  EXPECT_EQ(decode_generated(bpe, padded, false), bpe.decode(ids));
  const WordTokenizer words = WordTokenizer::from_corpus("It is a test, world.");
  const std::vector<int32_t> w = words.encode("It is a test");
  const auto pad = static_cast<int32_t>(words.vocab_size());
  std::vector<int32_t> w_padded = {pad};
  w_padded.insert(w_padded.end(), w.begin(), w.end());
  EXPECT_EQ(decode_generated(words, w_padded, false), words.decode(w));
}

TEST(StreamDecoder, UnfinishedTail) {
  EXPECT_EQ(utf8_unfinished_tail(""), 0u);
  EXPECT_EQ(utf8_unfinished_tail("abc"), 0u);
  EXPECT_EQ(utf8_unfinished_tail("a\xE2"), 1u);
  EXPECT_EQ(utf8_unfinished_tail("a\xE2\x82"), 2u);
  EXPECT_EQ(utf8_unfinished_tail("a\xE2\x82\xAC"), 0u);
  EXPECT_EQ(utf8_unfinished_tail("\xF0\x9F\x98"), 3u);
  EXPECT_EQ(utf8_unfinished_tail("\xF0\x9F\x98\x80"), 0u);
  EXPECT_EQ(utf8_unfinished_tail("a\x80"), 0u);  // a stray continuation byte: invalid, final
}

}  // namespace
}  // namespace tinylm
