#include "tensor/memory_reuse.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>

namespace tinylm {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// glibc's defaults again, so that later tests in this process see the usual allocator.
struct RestoreDefaults {
  ~RestoreDefaults() {
    mallopt(M_MMAP_MAX, 65536);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  }
};

// A block far above glibc's largest mmap threshold (32 MB), freed and allocated again:
// the freed memory stays with the allocator, and touching the second block does not
// fault its pages in again.
TEST(MemoryReuse, FreedLargeBlocksAreKeptAndReused) {
  RestoreDefaults restore;
  if (!reuse_freed_memory()) GTEST_SKIP() << "this allocator does not take the setting";
  constexpr size_t kBytes = 96u << 20;
  const size_t pages = kBytes / 4096;

  // Touches every page of a fresh block and returns the page faults that took.
  const auto touch_fresh_block = [&] {
    const long before = minor_faults();
    char* block = static_cast<char*>(std::malloc(kBytes));
    EXPECT_NE(block, nullptr);
    if (!block) return 0L;
    std::memset(block, 1, kBytes);
    asm volatile("" : : "r"(block) : "memory");  // the stores happen; the compiler keeps them
    const long faults = minor_faults() - before;
    std::free(block);
    return faults;
  };
  EXPECT_GE(touch_fresh_block(), static_cast<long>(pages / 2)) << "first use maps the pages";
  EXPECT_GE(mallinfo2().fordblks, kBytes) << "the freed block went back to the kernel";
  EXPECT_LT(touch_fresh_block(), static_cast<long>(pages / 16)) << "pages were mapped again";
}

}  // namespace
}  // namespace tinylm
