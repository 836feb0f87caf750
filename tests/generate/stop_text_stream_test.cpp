// StopTextStream (`tinylm sample --stop`): what it returns, joined, is the decoded text cut
// before the first occurrence of the stop text, for stop texts that span ids and split
// UTF-8 characters; the possible start of the stop text is held back, nothing more.
#include "generate/stop_text_stream.h"

#include <gtest/gtest.h>

#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/char_tokenizer.h"

namespace tinylm {
namespace {

struct Streamed {
  std::string text;
  bool stopped = false;
  size_t ids_taken = 0;  // ids added before the stream stopped (all of them when it did not)
};

// Feeds ids until the stream stops, as `tinylm sample` does, then finishes it.
Streamed stream(const Tokenizer& tok, const std::vector<int32_t>& ids, const std::string& stop) {
  StopTextStream s(tok, stop);
  Streamed out;
  for (int32_t id : ids) {
    out.text += s.add(id);
    ++out.ids_taken;
    if (s.stopped()) break;
  }
  out.text += s.finish();
  out.stopped = s.stopped();
  return out;
}

TEST(StopTextStream, CutsBeforeTheStopTextAcrossIds) {
  const CharTokenizer tok = CharTokenizer::from_corpus("abcdefghijklmnopqrstuvwxyz END.");
  const std::vector<int32_t> ids = tok.encode("hello world END more END");
  const Streamed r = stream(tok, ids, "END");
  EXPECT_EQ(r.text, "hello world ");
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.ids_taken, 15u);  // stopped at the 'D'
  const Streamed none = stream(tok, ids, "");
  EXPECT_EQ(none.text, "hello world END more END");
  EXPECT_FALSE(none.stopped);
  const Streamed absent = stream(tok, ids, "xyz");
  EXPECT_EQ(absent.text, "hello world END more END");
  EXPECT_FALSE(absent.stopped);
  EXPECT_EQ(stream(tok, tok.encode("END."), "END").text, "");
  EXPECT_EQ(stream(tok, tok.encode("ab.END"), ".").text, "ab");
}

TEST(StopTextStream, HoldsBackOnlyWhatMayStartTheStopText) {
  const CharTokenizer tok = CharTokenizer::from_corpus("abcdefghijklmnopqrstuvwxyz END.");
  StopTextStream s(tok, "END");
  EXPECT_EQ(s.add(tok.encode("a")[0]), "a");  // no start of "END": shown at once
  EXPECT_EQ(s.add(tok.encode("b")[0]), "b");
  EXPECT_EQ(s.add(tok.encode("E")[0]), "");  // may start "END"
  EXPECT_EQ(s.add(tok.encode("N")[0]), "");
  EXPECT_EQ(s.add(tok.encode("x")[0]), "ENx");  // "ENx" is no stop after all
  EXPECT_EQ(s.add(tok.encode("E")[0]), "");
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.finish(), "E");
  StopTextStream plain(tok, "");
  EXPECT_EQ(plain.add(tok.encode("a")[0]), "a");  // without a stop text, nothing waits
}

// Several stop texts: the first occurrence of any of them ends the text; a start of any
// of them is held back.
TEST(StopTextStream, StopsAtTheFirstOfSeveral) {
  const CharTokenizer tok = CharTokenizer::from_corpus("abcdefghijklmnopqrstuvwxyz END.");
  StopTextStream s(tok, std::vector<std::string>{"END", "", "xy"});
  std::string shown;
  for (int32_t id : tok.encode("ab EN x.xyz END")) shown += s.add(id);
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(shown + s.finish(), "ab EN x.");
  StopTextStream held(tok, std::vector<std::string>{"xyz", "yq"});
  EXPECT_EQ(held.add(tok.encode("a")[0]), "a");
  EXPECT_EQ(held.add(tok.encode("x")[0]), "");
  EXPECT_EQ(held.add(tok.encode("y")[0]), "");  // "xy" starts "xyz", "y" starts "yq"
  EXPECT_EQ(held.add(tok.encode("a")[0]), "xya");
}

TEST(StopTextStream, StopsAndReturnsNothingMore) {
  const CharTokenizer tok = CharTokenizer::from_corpus("abcdefghijklmnopqrstuvwxyz END.");
  StopTextStream s(tok, "END");
  std::string shown;
  for (int32_t id : tok.encode("ok END")) shown += s.add(id);
  EXPECT_EQ(shown, "ok ");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.add(tok.encode("a")[0]), "");
  EXPECT_EQ(s.finish(), "");
}

// Random GPT-2 ids, many of them single bytes that split UTF-8 characters, and a stop
// text taken from the decoded text at a random place: the result is always the decoded
// text cut before its first occurrence.
TEST(StopTextStream, BpeEqualsDecodeCutAtTheStopOnRandomIds) {
  const BpeTokenizer tok;
  uint64_t s = 777;
  const auto next = [&] { return (s = s * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<int32_t> ids;
    const int n = 1 + trial % 30;
    for (int i = 0; i < n; ++i)
      ids.push_back(static_cast<int32_t>(next() % (trial % 2 ? 256 : 50257)));
    const std::string full = tok.decode(ids);
    const size_t from = next() % full.size(), length = 1 + next() % 6;
    const std::string stop = full.substr(from, length);
    const Streamed r = stream(tok, ids, stop);
    ASSERT_TRUE(r.stopped) << "trial " << trial;
    ASSERT_EQ(r.text, full.substr(0, full.find(stop))) << "trial " << trial;
  }
}

// The stop text made only when the held-back end of the text becomes U+FFFD at finish().
TEST(StopTextStream, FindsAStopThatFinishCompletes) {
  const BpeTokenizer tok;
  const auto byte = [&](unsigned char b) { return static_cast<int32_t>(tok.vocab().byte_id[b]); };
  const Streamed r = stream(tok, {byte('a'), byte('x'), byte(0xE2)}, "x\xEF\xBF\xBD");
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.text, "a");
}

}  // namespace
}  // namespace tinylm
