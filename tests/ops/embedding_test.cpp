// Embedding: lookup, scatter-add backward (repeated ids accumulate), out-of-range ids,
// thread-count determinism. Fast vs reference (bit-identical: both add rows in order): the
// op table test (tests/backend/op_table_test.cpp).
#include "ops/embedding.h"

#include <gtest/gtest.h>

#include "ops/gradcheck.h"
#include "tensor/threads.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_same_bits_across_thread_counts;
using ops_test::random_vec;

std::vector<int32_t> random_ids(int64_t N, int64_t V, Rng& rng) {
  std::vector<int32_t> ids(N);
  for (auto& id : ids) id = static_cast<int32_t>(rng.below(V));
  return ids;
}

TEST(Embedding, ForwardCopiesRowsAndBackwardAccumulates) {
  const std::vector<float> table = {0, 1, 10, 11, 20, 21};  // V = 3, C = 2
  const std::vector<int32_t> ids = {2, 0, 2};
  std::vector<float> y(6), yr(6);
  embedding_forward(ids.data(), table.data(), y.data(), 3, 3, 2);
  ref::embedding_forward(ids.data(), table.data(), yr.data(), 3, 3, 2);
  EXPECT_EQ(y, (std::vector<float>{20, 21, 0, 1, 20, 21}));
  EXPECT_EQ(yr, y);

  const std::vector<float> dy = {1, 2, 3, 4, 5, 6};
  std::vector<float> dt(6, 1.0f), dtr(6, 1.0f);
  embedding_backward(dy.data(), ids.data(), dt.data(), 3, 3, 2);
  ref::embedding_backward(dy.data(), ids.data(), dtr.data(), 3, 3, 2);
  EXPECT_EQ(dt, (std::vector<float>{4, 5, 1, 1, 7, 9}));  // row 2 gets dy[0] + dy[2]
  EXPECT_EQ(dtr, dt);
}

TEST(Embedding, OutOfRangeIdThrowsNamingIt) {
  const std::vector<float> table(6, 0.0f), dy(4, 0.0f);
  std::vector<float> y(4), dt(6);
  for (int32_t bad : {3, -1}) {
    const std::vector<int32_t> ids = {0, bad};
    try {
      embedding_forward(ids.data(), table.data(), y.data(), 2, 3, 2);
      FAIL() << "expected InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
    }
    EXPECT_THROW(ref::embedding_forward(ids.data(), table.data(), y.data(), 2, 3, 2), InputError);
    EXPECT_THROW(embedding_backward(dy.data(), ids.data(), dt.data(), 2, 3, 2), InputError);
    EXPECT_THROW(ref::embedding_backward(dy.data(), ids.data(), dt.data(), 2, 3, 2), InputError);
  }
}

TEST(Embedding, BackwardIsDeterministicAcrossThreadCounts) {
  Rng rng(41);
  const int64_t N = 4096, V = 20, C = 256;
  const auto ids = random_ids(N, V, rng);
  const auto dy = random_vec(N * C, rng);
  expect_same_bits_across_thread_counts([&] {
    std::vector<float> dt(V * C, 0.0f);
    embedding_backward(dy.data(), ids.data(), dt.data(), N, V, C);
    return dt;
  });
}

}  // namespace
}  // namespace tinylm::ops
