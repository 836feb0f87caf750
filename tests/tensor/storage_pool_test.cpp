// The tensor storage cache: large released buffers are reused for the same size, small
// ones are not cached, storage is 64-byte aligned, and tensors built on it behave.
#include "tensor/storage_pool.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "tensor/tensor.h"

namespace tinylm {
namespace {

TEST(StoragePool, LargeBufferIsReusedForTheSameSize) {
  const int64_t count = 300000;  // 1.2 MB
  float* first = nullptr;
  {
    auto a = pooled_floats(count);
    first = a.get();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
    a[count - 1] = 3.0f;
  }
  const size_t cached = pooled_cached_bytes();
  EXPECT_GE(cached, count * sizeof(float));
  auto other_size = pooled_floats(count + 1000);  // not the cached size: a new buffer
  EXPECT_NE(other_size.get(), first);
  auto again = pooled_floats(count);
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(pooled_cached_bytes(), cached - count * sizeof(float));
}

TEST(StoragePool, SmallBuffersAreNotCached) {
  const size_t before = pooled_cached_bytes();
  { auto a = pooled_floats(16); }
  EXPECT_EQ(pooled_cached_bytes(), before);
}

TEST(StoragePool, TensorsOnReusedStorageAreIndependent) {
  Tensor a = Tensor::full({512, 512}, 1.0f);
  float* storage = a.data();
  a = Tensor();  // released into the cache
  Tensor b = Tensor::zeros({512, 512});
  Tensor c = Tensor::full({512, 512}, 2.0f);
  EXPECT_TRUE(b.data() == storage || c.data() == storage);
  EXPECT_NE(b.data(), c.data());
  for (int64_t i = 0; i < b.numel(); ++i) ASSERT_EQ(b[i], 0.0f);
  for (int64_t i = 0; i < c.numel(); ++i) ASSERT_EQ(c[i], 2.0f);
}

}  // namespace
}  // namespace tinylm
