// The gradient sum of a data-parallel step in one process (a world of one): sum mode
// leaves the gradients as they are, ordered mode adds each micro-batch's gradient in order
// (the parts N ranks would add), a tied parameter is reduced once.
#include "dist/gradient_sync.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/error.h"

namespace tinylm::dist {
namespace {

struct TwoParameters {
  Parameter a{Shape{3}, true}, b{Shape{2, 2}, false};
  // `a` listed twice, as a tied embedding and head are.
  ParameterList list() { return {{"a", &a}, {"b", &b}, {"a_again", &a}}; }
  void set_grads(float base) {
    for (int64_t i = 0; i < 3; ++i) a.grad.data()[i] = base + 0.1f * static_cast<float>(i);
    for (int64_t i = 0; i < 4; ++i) b.grad.data()[i] = -base * static_cast<float>(i + 1);
  }
};

TEST(GradientSync, NamesTheReduceModes) {
  EXPECT_EQ(reduce_mode("sum", "dist.reduce"), ReduceMode::kSum);
  EXPECT_EQ(reduce_mode("ordered", "dist.reduce"), ReduceMode::kOrdered);
  try {
    reduce_mode("mean", "dist.reduce");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dist.reduce: unknown 'mean'"), std::string::npos);
  }
}

TEST(GradientSync, ReducesATiedParameterOnce) {
  TwoParameters p;
  SingleProcess one;
  EXPECT_EQ(GradientSync(p.list(), one, ReduceMode::kSum).elements(), 3 + 4);
}

TEST(GradientSync, SumModeInOneProcessLeavesTheGradients) {
  TwoParameters p;
  SingleProcess one;
  GradientSync sync(p.list(), one, ReduceMode::kSum);
  EXPECT_FALSE(sync.zero_between_micros());
  p.set_grads(1.5f);
  sync.begin_step();
  sync.after_micro();
  sync.finish_step();
  EXPECT_FLOAT_EQ(p.a.grad.data()[2], 1.7f);
  EXPECT_FLOAT_EQ(p.b.grad.data()[3], -6.0f);
}

TEST(GradientSync, OrderedModeAddsTheMicroBatchesInOrder) {
  TwoParameters p;
  SingleProcess one;
  GradientSync sync(p.list(), one, ReduceMode::kOrdered);
  EXPECT_TRUE(sync.zero_between_micros());
  sync.begin_step();
  const float parts[3] = {0.25f, 1e8f, -1e8f};
  for (float base : parts) {  // each part on its own gradients, as the loop zeroes them
    p.set_grads(base);
    sync.after_micro();
  }
  sync.finish_step();
  for (int64_t i = 0; i < 3; ++i) {
    const float step = 0.1f * static_cast<float>(i);
    const float expected = ((0.25f + step) + (1e8f + step)) + (-1e8f + step);  // in order
    EXPECT_EQ(p.a.grad.data()[i], expected) << i;
  }
}

TEST(GradientSync, OrderedModeKeepsTheSignOfZeroOfASinglePart) {
  TwoParameters p;
  SingleProcess one;
  GradientSync sync(p.list(), one, ReduceMode::kOrdered);
  sync.begin_step();
  p.set_grads(0.0f);
  p.b.grad.data()[0] = -0.0f;
  sync.after_micro();
  sync.finish_step();
  EXPECT_TRUE(std::signbit(p.b.grad.data()[0]));
}

TEST(GradientSync, ChecksumsSeeEveryBit) {
  TwoParameters p;
  const double before = parameter_checksum(p.list());
  p.b.value.data()[3] = -0.0f;  // one sign bit
  EXPECT_NE(parameter_checksum(p.list()), before);
  SingleProcess one;
  EXPECT_EQ(gather_checksums(before, one), std::vector<double>{before});
}

}  // namespace
}  // namespace tinylm::dist
