// load_token_dataset: a text corpus split by position, or a folder from `tinylm prepare`.
#include "data/dataset.h"

#include <gtest/gtest.h>

#include <fstream>

#include "data/test_util.h"
#include "data/token_file.h"
#include "util/files.h"

namespace tinylm {
namespace {

using testing::input_error;
using testing::TempDir;

TEST(Dataset, TextCorpusDefaultsToCharactersAndSplitsByPosition) {
  const TempDir tmp;
  const std::string path = tmp.file("abc.txt");
  write_file_atomic(path, "abcabcabcabcabcabcabcabcabcabc");  // 30 characters
  const TokenDataset ds = load_token_dataset(path, "", 4, 0.2);
  EXPECT_EQ(ds.tokenizer->kind(), "char");
  EXPECT_EQ(ds.tokenizer->vocab_size(), 3);
  EXPECT_EQ(ds.train.size(), 24u);
  EXPECT_EQ(ds.val.size(), 6u);
  EXPECT_EQ(ds.tokenizer->decode(ds.val), "abcabc");
}

// A folder laid out as `tinylm prepare` writes it, with the GPT-2 tokenizer.
std::string prepared_folder(const TempDir& tmp, const std::vector<int32_t>& train,
                            const std::vector<int32_t>& val) {
  const std::string dir = tmp.file("prepared");
  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/meta.json", R"({"tokenizer": {"kind": "gpt2"}, "vocab_size": 50257})");
  write_token_file(dir + "/train.bin", train);
  write_token_file(dir + "/val.bin", val);
  return dir;
}

TEST(Dataset, PreparedFolderGivesItsFilesAndItsTokenizer) {
  const TempDir tmp;
  const std::vector<int32_t> train = {15496, 11, 995, 0, 50256, 40, 716};
  const std::vector<int32_t> val = {40, 588, 8887, 13};
  const std::string dir = prepared_folder(tmp, train, val);
  for (const std::string tokenizer : {"", "gpt2"}) {
    const TokenDataset ds = load_token_dataset(dir, tokenizer, 3, 0.5);  // val_fraction unused
    EXPECT_EQ(ds.tokenizer->kind(), "gpt2");
    EXPECT_EQ(ds.tokenizer->vocab_size(), 50257);
    EXPECT_EQ(ds.train, train);
    EXPECT_EQ(ds.val, val);
  }
}

TEST(Dataset, PreparedFolderErrorsNameTheProblem) {
  const TempDir tmp;
  const std::string dir = prepared_folder(tmp, {1, 2, 3, 4, 5}, {1, 2});
  EXPECT_NE(input_error([&] { load_token_dataset(dir, "char", 2); })
                .find("data.tokenizer is \"char\" but " + dir + " was prepared with the gpt2 tokenizer"),
            std::string::npos);
  EXPECT_EQ(input_error([&] { load_token_dataset(dir, "", 2); }),
            dir + "/val.bin: 2 tokens, need at least block_size+1 = 3");
  write_token_file(dir + "/val.bin", std::vector<int32_t>{1, 2, 60000});
  EXPECT_NE(input_error([&] { load_token_dataset(dir, "", 2); }).find("60000"), std::string::npos);
  std::filesystem::remove(dir + "/train.bin");
  EXPECT_EQ(input_error([&] { load_token_dataset(dir, "", 2); }),
            "data folder " + dir + " has no train.bin");
  std::filesystem::remove(dir + "/meta.json");
  EXPECT_NE(input_error([&] { load_token_dataset(dir, "", 2); }).find("has no meta.json"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm
