// Tests of CRC-32C (io/crc32c.h): the published check values (RFC 3720, iSCSI, appendix
// B.4), a bit-by-bit reference for every length and split, and the mask TensorFlow and
// LevelDB store.
#include "io/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace tinylm {
namespace {

// The CRC one bit at a time, straight from the definition (reflected polynomial
// 0x82F63B78, register starting at and finally xored with all ones).
uint32_t crc32c_bitwise(std::string_view bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (const char ch : bytes) {
    c ^= static_cast<unsigned char>(ch);
    for (int bit = 0; bit < 8; ++bit) c = (c >> 1) ^ ((c & 1u) ? 0x82F63B78u : 0u);
  }
  return ~c;
}

std::string iota_bytes(int from, int step, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>(from + step * i));
  return s;
}

TEST(Crc32c, PublishedCheckValues) {
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);  // the "check" value of CRC-32C
  // RFC 3720 B.4: 32 bytes of zeros, of ones, ascending 0..31, descending 31..0.
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  EXPECT_EQ(crc32c(iota_bytes(0, 1, 32)), 0x46DD794Eu);
  EXPECT_EQ(crc32c(iota_bytes(31, -1, 32)), 0x113FDB5Cu);
}

TEST(Crc32c, MatchesTheBitwiseDefinitionForEveryLengthAndSplit) {
  std::mt19937 gen(3);
  std::string s;
  for (int i = 0; i < 100; ++i) s.push_back(static_cast<char>(gen()));
  for (size_t n = 0; n <= s.size(); ++n) {
    const std::string_view prefix = std::string_view(s).substr(0, n);
    ASSERT_EQ(crc32c(prefix), crc32c_bitwise(prefix)) << n;
    const size_t cut = n / 3;  // extend continues a CRC: crc(a + b) from crc(a) and b
    EXPECT_EQ(crc32c_extend(crc32c(prefix.substr(0, cut)), prefix.substr(cut)), crc32c(prefix));
  }
}

TEST(Crc32c, MaskRotatesAndAddsTheConstant) {
  EXPECT_EQ(crc32c_mask(0), 0xA282EAD8u);
  EXPECT_EQ(crc32c_mask(0x00008000u), 1u + 0xA282EAD8u);  // bit 15 rotates to bit 0
  EXPECT_EQ(crc32c_mask(1), (1u << 17) + 0xA282EAD8u);
  for (const uint32_t c : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu, 0x12345678u}) {
    EXPECT_EQ(crc32c_unmask(crc32c_mask(c)), c);
    EXPECT_NE(crc32c_mask(c), c);
  }
}

// TensorFlow's index files end with an empty metaindex block: the 8 bytes of an empty
// LevelDB block (restart offset 0, one restart), type byte 0, and this masked CRC, stored
// little-endian as c0 f2 a1 b0 (read from indexes that TensorFlow 1.x wrote).
TEST(Crc32c, TrailerOfTensorFlowsEmptyMetaindexBlock) {
  const std::string block_and_type("\0\0\0\0\x01\0\0\0\0", 9);
  EXPECT_EQ(crc32c_mask(crc32c(block_and_type)), 0xB0A1F2C0u);
}

}  // namespace
}  // namespace tinylm
