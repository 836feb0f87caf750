#include "tensor/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "util/aligned.h"
#include "util/error.h"
#include "util/rng.h"

namespace tinylm {

TEST(Tensor, ZerosHaveShapeAndValues) {
  Tensor t = Tensor::zeros({2, 3, 4});
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.dim(-1), 4);
  for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t[i], 0.0f);
}

TEST(Tensor, ReshapeIsAViewAndInfersMinusOne) {
  Tensor t = Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor v = t.reshaped({3, -1});
  EXPECT_EQ(v.shape(), (Shape{3, 2}));
  v[0] = 42;
  EXPECT_EQ(t[0], 42);  // shared storage
  EXPECT_THROW(t.reshaped({4, 2}), InputError);
}

TEST(Tensor, CloneCopies) {
  Tensor t = Tensor::full({3}, 7);
  Tensor c = t.clone();
  c[0] = 1;
  EXPECT_EQ(t[0], 7);
}

// CPU storage starts on a cache line (util/aligned.h), whatever the size: small tensors
// (glibc's small bins), large ones (a block of its own, 16 bytes past a page) and after
// frees (glibc then moves its threshold for blocks of their own).
TEST(Tensor, CpuStorageStartsOnA64ByteBoundary) {
  const auto aligned = [](const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % kHostAlignment == 0;
  };
  for (int round = 0; round < 2; ++round)
    for (int64_t n : {1, 3, 17, 768, 5000, 768 * 2304, 3 << 20}) {
      const Tensor t = Tensor::empty({n});
      EXPECT_TRUE(aligned(t.data())) << n << " floats, round " << round;
      EXPECT_TRUE(aligned(Tensor::zeros({n}).clone().data())) << n << " floats (clone)";
    }
  AlignedVector<int8_t> bytes(33);
  EXPECT_TRUE(aligned(bytes.data()));
}

TEST(Tensor, RejectsMoreThanFourDimsAndBadFrom) {
  EXPECT_THROW(Tensor::zeros({1, 1, 1, 1, 1}), InputError);
  EXPECT_THROW(Tensor::from({2}, {1, 2, 3}), InputError);
}

TEST(Rng, SeedIsReproducibleAndStateRestores) {
  Rng a(7), b(7);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.next_u64(), b.next_u64());
  auto saved = a.state();
  float x = a.uniform();
  a.set_state(saved);
  EXPECT_EQ(a.uniform(), x);
  double sum = 0, sq = 0;
  Rng r(1);
  for (int i = 0; i < 20000; ++i) {
    float z = r.normal();
    sum += z;
    sq += z * z;
  }
  EXPECT_NEAR(sum / 20000, 0.0, 0.03);
  EXPECT_NEAR(sq / 20000, 1.0, 0.05);
}

}  // namespace tinylm
