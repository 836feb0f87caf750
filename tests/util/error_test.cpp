// require(): the message of a check that passes is never built.
#include "util/error.h"

#include <gtest/gtest.h>

#include <string>

namespace tinylm {
namespace {

TEST(Require, BuildsALazyMessageOnlyOnFailure) {
  int built = 0;
  const auto message = [&] {
    ++built;
    return std::string("bad value ") + std::to_string(42);
  };
  require(true, message);
  EXPECT_EQ(built, 0);
  try {
    require(false, message);
    FAIL() << "require(false, ...) did not throw";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "bad value 42");
  }
  EXPECT_EQ(built, 1);
}

TEST(Require, TakesLiteralsAndStrings) {
  EXPECT_NO_THROW(require(true, "fine"));
  EXPECT_THROW(require(false, "a literal"), InputError);
  EXPECT_THROW(require(false, std::string("a string")), InputError);
}

}  // namespace
}  // namespace tinylm
