// Corpus loading, train/val split, and the whole path corpus -> tokenizer -> splits.
#include "data/corpus.h"

#include <gtest/gtest.h>

#include <numeric>

#include "data/dataset.h"
#include "data/split.h"
#include "data/test_util.h"
#include "util/files.h"

namespace tinylm {
namespace {

using testing::input_error;
using testing::repo_path;
using testing::TempDir;

TEST(Corpus, LoadsTheShippedCorpora) {
  EXPECT_EQ(load_corpus(repo_path("data/the-verdict.txt")).size(), 20479u);
  EXPECT_EQ(load_corpus(repo_path("data/tinyshakespeare.txt")).size(), 1115394u);
  EXPECT_EQ(load_corpus(repo_path("data/bangla.txt")).size(), 1206741u);
}

TEST(Corpus, ClearErrors) {
  const TempDir tmp;
  const std::string missing = repo_path("data/no-such-file.txt");
  EXPECT_EQ(input_error([&] { load_corpus(missing); }), "corpus not found: " + missing);
  EXPECT_NE(input_error([&] { load_corpus(repo_path("data")); }).find("is a folder"),
            std::string::npos);

  const std::string empty = tmp.file("empty.txt");
  write_file_atomic(empty, "");
  EXPECT_EQ(input_error([&] { load_corpus(empty); }), "corpus is empty: " + empty);

  const std::string latin1 = tmp.file("latin1.txt");
  write_file_atomic(latin1, "caf\xE9 au lait");
  EXPECT_EQ(input_error([&] { load_corpus(latin1); }),
            "corpus " + latin1 + ": invalid UTF-8 at byte 3");
}

std::vector<int32_t> iota(int n) {
  std::vector<int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

TEST(Split, NinetyTenByPosition) {
  const std::vector<int32_t> ids = iota(1000);
  const TokenSplit s = split_tokens(ids, 8);
  ASSERT_EQ(s.train.size(), 900u);
  ASSERT_EQ(s.val.size(), 100u);
  EXPECT_EQ(s.train.front(), 0);
  EXPECT_EQ(s.train.back(), 899);
  EXPECT_EQ(s.val.front(), 900);
  EXPECT_EQ(s.val.back(), 999);
}

TEST(Split, ConfigurableFraction) {
  const std::vector<int32_t> ids = iota(1001);
  EXPECT_EQ(split_tokens(ids, 4, 0.25).train.size(), 750u);  // floor(1001 * 0.75)
  EXPECT_EQ(split_tokens(ids, 4, 0.25).val.size(), 251u);
  const TokenSplit all = split_tokens(ids, 4, 0.0);
  EXPECT_EQ(all.train.size(), 1001u);
  EXPECT_TRUE(all.val.empty());
  EXPECT_THROW(split_tokens(ids, 4, 1.0), InputError);
  EXPECT_THROW(split_tokens(ids, 4, -0.1), InputError);
  EXPECT_THROW(split_tokens(ids, 0), InputError);
}

TEST(Split, TooShortNamesTheSplitAndTheNeed) {
  const std::vector<int32_t> ids = iota(100);  // val: 10 tokens
  EXPECT_NO_THROW(split_tokens(ids, 9));
  const std::string val = input_error([&] { split_tokens(ids, 10); });
  EXPECT_EQ(val,
            "corpus too short: 10 tokens in the validation split (of 100 in all), need at "
            "least block_size+1 = 11 for the validation split");
  const std::string train = input_error([&] { split_tokens(ids, 99, 0.01); });
  EXPECT_NE(train.find("99 tokens in the training split"), std::string::npos) << train;
  EXPECT_NE(train.find("block_size+1 = 100 for the training split"), std::string::npos) << train;
  // With no validation split only the training split must hold a window.
  EXPECT_NO_THROW(split_tokens(ids, 99, 0.0));
}

TEST(TokenDataset, VerdictWithEachTokenizer) {
  const TokenDataset chars = load_token_dataset(repo_path("data/the-verdict.txt"), "char", 64);
  EXPECT_EQ(chars.tokenizer->kind(), "char");
  EXPECT_EQ(chars.train.size() + chars.val.size(), 20479u);
  EXPECT_EQ(chars.train.size(), 18431u);  // floor(20479 * 0.9)

  const TokenDataset words = load_token_dataset(repo_path("data/the-verdict.txt"), "word", 32);
  EXPECT_EQ(words.tokenizer->vocab_size(), 1132);
  EXPECT_EQ(words.train.size() + words.val.size(), 4690u);

  EXPECT_THROW(load_token_dataset(repo_path("data/the-verdict.txt"), "nope", 8), InputError);
  const std::string short_msg =
      input_error([] { load_token_dataset(repo_path("data/the-verdict.txt"), "word", 1024); });
  EXPECT_NE(short_msg.find("corpus too short"), std::string::npos) << short_msg;
}

}  // namespace
}  // namespace tinylm
