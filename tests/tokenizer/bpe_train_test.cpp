// BPE training: the files load back into BpeTokenizer, round trips (bytes outside the
// corpus too), determinism, tie-breaking, the encoder agreeing with the merges applied in
// training order, compression, Bengali, and errors.
#include "tokenizer/bpe_train.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "tokenizer/bpe_pretokenize.h"
#include "tokenizer/bpe_tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/source_dir.h"
#include "util/utf8.h"

namespace tinylm {
namespace {

// The first `bytes` bytes of a data file, cut back to a UTF-8 character boundary.
std::string data_prefix(const std::string& name, size_t bytes) {
  std::string text = read_file(std::string(tinylm::source_dir()) + "/data/" + name);
  if (text.size() > bytes) {
    text.resize(bytes);
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80)
      text.pop_back();
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
  }
  return text;
}

// A fresh folder under the system temp dir, removed at the end of the test.
struct TempDir {
  std::string path;
  explicit TempDir(const std::string& name)
      : path((std::filesystem::temp_directory_path() /
              ("tinylm_bpe_train_" + name + "_" + std::to_string(getpid())))
                 .string()) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

BpeTokenizer tokenizer_of(const BpeTrainResult& r) {
  return BpeTokenizer(parse_bpe_vocab(bpe_encoder_json(r), bpe_merges_text(r)), "bpe", "");
}

int32_t byte_id(char c) {
  return gpt2_byte_ids()[static_cast<unsigned char>(c)];
}

// The merges applied in training order to one piece: merge i replaces every (left, right)
// occurrence, left to right, before merge i+1 is looked at (HF / the original GPT-2 rule).
std::vector<int32_t> apply_merges_in_order(const BpeTrainResult& r, std::string_view piece) {
  std::vector<int32_t> t;
  for (const char c : piece) t.push_back(byte_id(c));
  for (size_t m = 0; m < r.merges.size() && t.size() > 1; ++m) {
    const auto [a, b] = r.merges[m];
    std::vector<int32_t> out;
    for (size_t i = 0; i < t.size(); ++i) {
      if (i + 1 < t.size() && t[i] == a && t[i + 1] == b) {
        out.push_back(static_cast<int32_t>(256 + m));
        ++i;
      } else {
        out.push_back(t[i]);
      }
    }
    t.swap(out);
  }
  return t;
}

const BpeTrainResult& shakespeare_300() {
  static const BpeTrainResult r = train_bpe(data_prefix("tinyshakespeare.txt", 50000), {557, 1});
  return r;
}

TEST(BpeTrain, BytesTakeGpt2Ids) {
  EXPECT_EQ(byte_id('!'), 0);
  EXPECT_EQ(byte_id('~'), 93);
  EXPECT_EQ(byte_id('\n'), 198);
  EXPECT_EQ(byte_id(' '), 220);
  std::set<int32_t> ids(gpt2_byte_ids().begin(), gpt2_byte_ids().end());
  EXPECT_EQ(ids.size(), 256u);
  EXPECT_EQ(*ids.rbegin(), 255);
  // The same as OpenAI's encoder.json.
  const BpeTokenizer gpt2;
  for (int b = 0; b < 256; ++b)
    EXPECT_EQ(gpt2.vocab().byte_id[b], static_cast<uint32_t>(gpt2_byte_ids()[b])) << b;
}

TEST(BpeTrain, FirstMergeIsTheMostFrequentPair) {
  const BpeTrainResult r = train_bpe("ab ab ab cd", {258, 1});
  ASSERT_EQ(r.merges.size(), 1u);
  EXPECT_EQ(r.merges[0], std::make_pair(byte_id('a'), byte_id('b')));
  ASSERT_EQ(r.tokens.size(), 258u);
  EXPECT_EQ(r.tokens[256], "ab");
  EXPECT_EQ(r.tokens[257], "<|endoftext|>");
  EXPECT_EQ(r.n_pieces, 4);
  EXPECT_EQ(r.n_distinct, 3);
}

TEST(BpeTrain, TiesGoToTheSmallestPair) {
  // Pieces "xy", " zw": three pairs counted once each. (x, y) = (87, 88) is the smallest,
  // then (z, w) = (89, 86) before (' ', z) = (220, 89).
  const BpeTrainResult r = train_bpe("xy zw", {259, 1});
  ASSERT_EQ(r.merges.size(), 2u);
  EXPECT_EQ(r.merges[0], std::make_pair(byte_id('x'), byte_id('y')));
  EXPECT_EQ(r.merges[1], std::make_pair(byte_id('z'), byte_id('w')));
}

TEST(BpeTrain, StopsEarlyWhenNothingIsLeftToMerge) {
  const BpeTrainResult r = train_bpe("aaaa", {1000, 1});
  // "aaaa" -> aa aa -> aaaa: two merges, then one token per piece.
  ASSERT_EQ(r.merges.size(), 2u);
  EXPECT_EQ(r.tokens[257], "aaaa");
  EXPECT_EQ(r.tokens.size(), 259u);
  const BpeTokenizer tok = tokenizer_of(r);
  EXPECT_EQ(tok.encode("aaaaaaa"), (std::vector<int32_t>{257, 256, byte_id('a')}));
}

TEST(BpeTrain, WritesFilesThatLoadAndRoundTrip) {
  const BpeTrainResult& r = shakespeare_300();
  ASSERT_EQ(r.merges.size(), 300u);
  TempDir dir("roundtrip");
  write_bpe_vocab(r, dir.path + "/vocab");
  const std::string enc = read_file(dir.path + "/vocab/encoder.json");
  const std::string merges = read_file(dir.path + "/vocab/vocab.bpe");
  EXPECT_TRUE(merges.starts_with("#version: 0.2\n"));
  const BpeTokenizer tok(dir.path + "/vocab", "bpe");
  EXPECT_EQ(tok.vocab_size(), 557);
  EXPECT_EQ(tok.eot_id(), 556);
  EXPECT_EQ(tok.vocab().n_merges, 300);
  const std::vector<std::string> texts = {
      "First Citizen:\nBefore we proceed any further, hear me speak.\n",
      "The quick brown fox jumps over the lazy dog; 1234567890!",
      "আমার সোনার বাংলা, আমি তোমায় ভালোবাসি।",
      "emoji 😀🎉👍🏽 and 中文 and ünïcödé",
      std::string("control \x01\x02\t\r\n bytes \x7f", 22),
      "  many   spaces\n\n\nand lines <|endoftext|> after",
      ""};
  for (const auto& text : texts) {
    EXPECT_EQ(tok.decode(tok.encode(text)), text);
    EXPECT_EQ(tok.decode(tok.encode_ordinary(text)), text);
  }
  EXPECT_EQ(tok.encode("a<|endoftext|>b").at(1), 556);
  // Shakespeare compresses: fewer tokens than bytes.
  const std::string held_out = data_prefix("tinyshakespeare.txt", 80000).substr(50000);
  const size_t n = tok.encode(held_out).size();
  EXPECT_LT(n, held_out.size() * 6 / 10) << n << " tokens for " << held_out.size() << " bytes";
}

TEST(BpeTrain, EncoderEqualsTheMergesInTrainingOrder) {
  // The encoder merges by tiktoken's rule (lowest rank of the joined bytes); with ranks in
  // merge order it gives what the merges applied in order give, on every training piece.
  const std::string corpus = data_prefix("tinyshakespeare.txt", 50000);
  const BpeTrainResult& r = shakespeare_300();
  const BpeTokenizer tok = tokenizer_of(r);
  std::set<std::string_view> pieces;
  gpt2_split(corpus, [&](std::string_view p) { pieces.insert(p); });
  size_t mismatches = 0;
  for (const auto piece : pieces)
    if (tok.encode_ordinary(piece) != apply_merges_in_order(r, piece)) ++mismatches;
  EXPECT_EQ(mismatches, 0u) << "of " << pieces.size() << " pieces";
  // And on the whole text (pieces the encoder caches or finds whole).
  std::vector<int32_t> expected;
  gpt2_split(corpus, [&](std::string_view p) {
    const auto ids = apply_merges_in_order(r, p);
    expected.insert(expected.end(), ids.begin(), ids.end());
  });
  EXPECT_EQ(tok.encode_ordinary(corpus), expected);
}

TEST(BpeTrain, IsDeterministic) {
  const std::string corpus = data_prefix("tinyshakespeare.txt", 50000);
  TempDir dir("determinism");
  write_bpe_vocab(train_bpe(corpus, {557, 1}), dir.path + "/a");
  write_bpe_vocab(train_bpe(corpus, {557, 1}), dir.path + "/b");
  EXPECT_EQ(read_file(dir.path + "/a/encoder.json"), read_file(dir.path + "/b/encoder.json"));
  EXPECT_EQ(read_file(dir.path + "/a/vocab.bpe"), read_file(dir.path + "/b/vocab.bpe"));
  // Threads only split the counting: the whole text (many chunks) gives the same merges.
  const std::string all = data_prefix("tinyshakespeare.txt", 1 << 20);
  const BpeTrainResult one = train_bpe(all, {357, 1}), four = train_bpe(all, {357, 4});
  EXPECT_EQ(one.merges, four.merges);
  EXPECT_EQ(one.n_pieces, four.n_pieces);
  EXPECT_EQ(one.n_distinct, four.n_distinct);
}

TEST(BpeTrain, LearnsBengali) {
  const std::string corpus = data_prefix("bangla.txt", 100000);
  const BpeTrainResult r = train_bpe(corpus, {557, 2});
  ASSERT_EQ(r.merges.size(), 300u);
  const BpeTokenizer tok = tokenizer_of(r);
  const std::vector<int32_t> ids = tok.encode(corpus);
  EXPECT_EQ(tok.decode(ids), corpus);
  EXPECT_LT(ids.size(), corpus.size() / 2) << ids.size() << " tokens";
  // Bengali letters are 3 bytes: the merges build whole characters and syllables, so most
  // of the text's tokens are valid UTF-8 on their own.
  size_t whole = 0, valid_tokens = 0;
  for (const int32_t id : ids)
    whole += utf8_first_invalid(tok.vocab().bytes_of(id)) == std::string_view::npos;
  for (size_t id = 256; id < 556; ++id)
    valid_tokens += utf8_first_invalid(r.tokens[id]) == std::string_view::npos;
  EXPECT_GT(whole, ids.size() * 7 / 10) << whole << " of " << ids.size();
  EXPECT_GT(valid_tokens, 100u);
}

std::string error_of(std::string_view corpus, int64_t vocab) {
  try {
    train_bpe(corpus, {vocab, 1});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(BpeTrain, RejectsBadInput) {
  EXPECT_NE(error_of("some text", 256).find("at least 257"), std::string::npos);
  EXPECT_NE(error_of("some text", 0).find("at least 257"), std::string::npos);
  EXPECT_NE(error_of("", 1000).find("empty"), std::string::npos);
  EXPECT_NE(error_of("<|endoftext|><|endoftext|>", 1000).find("no text"), std::string::npos);
  EXPECT_NE(error_of("abc\xff"
                     "def",
                     1000)
                .find("invalid UTF-8 at byte 3"),
            std::string::npos);
  EXPECT_NE(error_of("ab\xe0\xa6", 1000).find("invalid UTF-8 at byte 2"), std::string::npos);
  // vocab_size 257: no merges, only bytes and <|endoftext|>.
  const BpeTrainResult r = train_bpe("hello", {257, 1});
  EXPECT_TRUE(r.merges.empty());
  EXPECT_EQ(tokenizer_of(r).encode("hi").size(), 2u);
}

}  // namespace
}  // namespace tinylm

namespace tinylm {
namespace {

// Long unbroken runs (one letter, DNA) are one piece each; training on
// them was quadratic in their length (80 kB of "a": 56 s). These sizes took tens of
// seconds before; the results are asserted, not the time.
TEST(BpeTrainLongRuns, OneLetterRunDoublesEachMerge) {
  const std::string corpus(65536, 'a');  // one piece of 2^16 letters
  const BpeTrainResult r = train_bpe(corpus, {300, 1});
  // Each merge joins the two halves of the last token: a^2, a^4, ..., a^65536; then the
  // piece is one token and training stops early.
  ASSERT_EQ(r.merges.size(), 16u);
  for (size_t i = 0; i < r.merges.size(); ++i) {
    EXPECT_EQ(r.tokens[256 + i], std::string(size_t{2} << i, 'a')) << i;
    EXPECT_EQ(r.merges[i].first, r.merges[i].second) << i;
  }
}

std::string random_dna(size_t n, uint64_t seed) {
  std::string s(n, 'A');
  for (char& c : s) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    c = "ACGT"[(seed >> 33) & 3];
  }
  return s;
}

// The heap segmentation of long words gives exactly the scans' result (the reference).
TEST(BpeTrainLongRuns, HeapSegmentationMatchesScans) {
  const std::string corpus = random_dna(3000, 1) + " " + std::string(2000, 'a') + " " +
                             random_dna(1500, 2) + " xyzzy " + random_dna(800, 3);
  BpeTrainOptions scans{400, 1}, heap{400, 1};
  scans.linear_segment_max = 1 << 30;
  heap.linear_segment_max = 0;
  const BpeTrainResult a = train_bpe(corpus, scans), b = train_bpe(corpus, heap);
  EXPECT_EQ(a.merges, b.merges);
  EXPECT_EQ(a.tokens, b.tokens);
}

TEST(BpeTrainLongRuns, RandomDnaTrainsAndRoundTrips) {
  const std::string corpus = random_dna(40000, 7);
  const BpeTrainResult r = train_bpe(corpus, {400, 2});
  EXPECT_EQ(r.merges.size(), 400u - 257u);
  const BpeTokenizer tok = tokenizer_of(r);
  const std::vector<int32_t> ids = tok.encode(corpus);
  EXPECT_EQ(tok.decode(ids), corpus);
  EXPECT_LT(ids.size(), corpus.size() / 3);  // 143 merges of a 4-letter alphabet compress
}

}  // namespace
}  // namespace tinylm
