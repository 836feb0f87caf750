// nanoGPT .bin token files: flat little-endian uint16, or uint32 for larger vocabularies.
#include "data/token_file.h"

#include <gtest/gtest.h>

#include "data/test_util.h"
#include "util/files.h"

namespace tinylm {
namespace {

using testing::input_error;
using testing::TempDir;

TEST(TokenFile, LittleEndianUint16Layout) {
  const std::vector<int32_t> ids = {0, 1, 258, 50256, 65535};
  EXPECT_EQ(encode_uint16_tokens(ids), std::string("\x00\x00\x01\x00\x02\x01\x50\xC4\xFF\xFF", 10));
}

TEST(TokenFile, RoundTripThroughAFile) {
  const TempDir tmp;
  std::vector<int32_t> ids;
  for (int i = 0; i < 70000; ++i) ids.push_back((i * 7919) % 65536);
  const std::string path = tmp.file("train.bin");
  write_token_file(path, ids);
  EXPECT_EQ(read_file(path).size(), 140000u);
  EXPECT_EQ(read_token_file(path), ids);
  write_token_file(path, {});
  EXPECT_TRUE(read_token_file(path).empty());
}

TEST(TokenFile, IdsThatDoNotFitCannotBeWritten) {
  const std::vector<int32_t> big = {1, 65536};
  EXPECT_EQ(input_error([&] { encode_uint16_tokens(big); }),
            "cannot write token 1 = 65536 as uint16 (ids must be in [0, 65536))");
  const std::vector<int32_t> negative = {-1};
  EXPECT_THROW(encode_uint16_tokens(negative), InputError);
}

// Llama 3's and Qwen's ids (above 65,535) go in 4 bytes each, little-endian.
TEST(TokenFile, Uint32ForVocabulariesAbove65536) {
  EXPECT_EQ(token_width_for(65536), TokenWidth::kUint16);
  EXPECT_EQ(token_width_for(65537), TokenWidth::kUint32);
  EXPECT_EQ(token_width_for(151669), TokenWidth::kUint32);
  const std::vector<int32_t> ids = {0, 258, 151643, 65536};
  EXPECT_EQ(encode_tokens(ids, TokenWidth::kUint32),
            std::string("\x00\x00\x00\x00\x02\x01\x00\x00\x5B\x50\x02\x00\x00\x00\x01\x00", 16));
  const TempDir tmp;
  const std::string path = tmp.file("train.bin");
  write_token_file(path, ids, TokenWidth::kUint32);
  EXPECT_EQ(read_token_file(path, 151669, TokenWidth::kUint32), ids);
  const std::string range =
      input_error([&] { read_token_file(path, 151643, TokenWidth::kUint32); });
  EXPECT_NE(range.find("token 2 = 151643 is outside the vocabulary [0, 151643)"), std::string::npos)
      << range;
  write_file_atomic(path, std::string("\x01\x00\x00\x00\x02\x00", 6));
  EXPECT_NE(input_error([&] {
              read_token_file(path, 10, TokenWidth::kUint32);
            }).find("6 bytes is not a whole number of uint32 ids"),
            std::string::npos);
  EXPECT_EQ(parse_token_width("uint32", "meta.json"), TokenWidth::kUint32);
  EXPECT_EQ(input_error([] { parse_token_width("int64", "meta.json"); }),
            "meta.json: dtype \"int64\" is not uint16 or uint32");
}

TEST(TokenFile, MalformedFiles) {
  const TempDir tmp;
  const std::string path = tmp.file("odd.bin");
  write_file_atomic(path, std::string("\x01\x00\x02", 3));
  const std::string odd = input_error([&] { read_token_file(path); });
  EXPECT_NE(odd.find(path + ": 3 bytes is not a whole number of uint16 ids"), std::string::npos)
      << odd;

  write_file_atomic(path, std::string("\x01\x00\x20\x00", 4));  // ids 1, 32
  EXPECT_EQ(read_token_file(path, 33), (std::vector<int32_t>{1, 32}));
  const std::string range = input_error([&] { read_token_file(path, 32); });
  EXPECT_NE(range.find("token 1 = 32 is outside the vocabulary [0, 32)"), std::string::npos)
      << range;

  EXPECT_THROW(read_token_file(tmp.file("missing.bin")), InputError);
}

}  // namespace
}  // namespace tinylm
