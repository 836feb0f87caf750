// Byte pair merging: the heap version (long pieces) gives the linear scan's result.
#include "tokenizer/bpe_merge.h"

#include <gtest/gtest.h>

#include <string>

#include "tokenizer/bpe_bytes_map.h"
#include "tokenizer/bpe_tokenizer.h"
#include "util/rng.h"

namespace tinylm {
namespace {

TEST(BpeMerge, HeapMatchesLinearScanOnLongPieces) {
  const BpeTokenizer tok;
  const BpeVocab& v = tok.vocab();
  const std::string alphabet[] = {
      " ",       "  ", "-", "=", "!", "*", "a", "e", "th", "\n", "\xE0\xA6\x95", "\xF0\x9F\x98\x80",
      "\xC3\xA9"};
  Rng rng(11);
  for (int t = 0; t < 300; ++t) {
    std::string piece;
    const int parts = 40 + static_cast<int>(rng.below(400));
    for (int i = 0; i < parts; ++i) piece += alphabet[rng.below(std::size(alphabet))];
    std::vector<int32_t> fast, slow;
    bpe_merge_piece(v, piece, fast);
    bpe_merge_piece_linear(v, piece, slow);
    ASSERT_EQ(fast, slow) << "piece of " << piece.size() << " bytes";
  }
}

}  // namespace
}  // namespace tinylm

namespace tinylm {
namespace {

TEST(BytesMap, InsertFindClear) {
  BytesMap map;
  for (uint32_t i = 0; i < 5000; ++i) EXPECT_TRUE(map.insert(std::to_string(i) + "x", i));
  EXPECT_FALSE(map.insert("17x", 3));
  EXPECT_EQ(map.find("17x"), 17u);
  EXPECT_EQ(map.find("17"), kAbsent);
  map.clear();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.find("17x"), kAbsent);
  for (uint32_t i = 0; i < 5000; ++i) EXPECT_TRUE(map.insert(std::to_string(i) + "y", i));
  EXPECT_EQ(map.find("4999y"), 4999u);
}

}  // namespace
}  // namespace tinylm
