#include "util/utf8.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace tinylm {

TEST(Utf8, DecodesAndEncodesMultiByte) {
  const std::string s = "a\xC3\xA9\xE0\xA6\x95\xF0\x9F\x98\x80";  // a é ক 😀
  auto cps = utf8_decode(s);
  ASSERT_EQ(cps.size(), 4u);
  EXPECT_EQ(cps[1], 0xE9u);
  EXPECT_EQ(cps[2], 0x995u);
  EXPECT_EQ(cps[3], 0x1F600u);
  EXPECT_EQ(utf8_encode(cps), s);
}

TEST(Utf8, ReportsTheByteOffsetOfInvalidInput) {
  EXPECT_EQ(utf8_first_invalid("ok\xFFno"), 2u);
  EXPECT_EQ(utf8_first_invalid("\xC0\xAF"), 0u);          // overlong
  EXPECT_EQ(utf8_first_invalid("ab\xED\xA0\x80"), 2u);    // surrogate
  EXPECT_EQ(utf8_first_invalid("abc\xE0\xA6"), 3u);       // truncated
  try {
    utf8_decode("xy\x80", "corpus.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "corpus.txt: invalid UTF-8 at byte 2");
  }
}

}  // namespace tinylm
