// Shape: dimensions held inline; it behaves like the std::vector<int64_t> it replaced.
#include "tensor/shape.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace tinylm {
namespace {

TEST(Shape, ReadsLikeAVector) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.size(), 3u);
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s[1], 3);
  EXPECT_EQ(s.back(), 4);
  s.back() = 5;
  int64_t product = 1;
  for (const int64_t d : s) product *= d;
  EXPECT_EQ(product, 30);
  EXPECT_EQ(s.to_vector(), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_TRUE(Shape().empty());
}

TEST(Shape, EqualOnlyWithTheSameDimensions) {
  EXPECT_EQ(Shape({2, 3}), Shape(std::vector<int64_t>{2, 3}));
  EXPECT_NE(Shape({2, 3}), Shape({3, 2}));
  EXPECT_NE(Shape({2, 3}), Shape({2, 3, 1}));
  EXPECT_NE(Shape({2}), Shape());
}

TEST(Shape, RefusesMoreThanItsCapacity) {
  Shape s;
  for (size_t i = 0; i < Shape::kMaxDims; ++i) s.push_back(1);
  EXPECT_THROW(s.push_back(1), InputError);
  EXPECT_THROW(Shape(std::vector<int64_t>(Shape::kMaxDims + 1, 1)), InputError);
}

}  // namespace
}  // namespace tinylm
