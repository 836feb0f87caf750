// ParallelErrors: an exception thrown inside an OpenMP parallel region reaches the
// calling thread after the region (instead of std::terminate), and the region's other
// iterations still run.
#include "util/parallel_errors.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "util/error.h"

namespace tinylm {
namespace {

TEST(ParallelErrors, AnExceptionInsideARegionIsRethrownAfterIt) {
  ParallelErrors errors;
  std::atomic<int> done{0};
#pragma omp parallel for
  for (int i = 0; i < 64; ++i) {
    errors.run([&] {
      if (i == 17) throw InputError("item 17 is bad");
      ++done;
    });
  }
  EXPECT_EQ(done.load(), 63);
  try {
    errors.rethrow();
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "item 17 is bad");
  }
}

TEST(ParallelErrors, NothingToRethrowWhenNothingThrew) {
  ParallelErrors errors;
#pragma omp parallel for
  for (int i = 0; i < 8; ++i) errors.run([] {});
  EXPECT_NO_THROW(errors.rethrow());
}

}  // namespace
}  // namespace tinylm
