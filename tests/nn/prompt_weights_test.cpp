// The packed copy a prompt reads (nn/prompt_weights.h) through Linear: products of more
// than ops::kRowInvariantMaxRows rows read it after set_decode_weights, give the float32
// product, and give each row the same bits whatever the other rows.
#include <gtest/gtest.h>

#include <cmath>

#include "common/gradcheck.h"
#include "nn/linear.h"
#include "ops/linear_packed.h"
#include "ops/matmul.h"

namespace tinylm::nn {
namespace {

using testing::random_tensor;

Linear random_linear(int64_t in, int64_t out, Rng& rng) {
  Linear l(in, out, /*bias=*/true);
  l.init(rng, 0.2f);
  l.bias.value.copy_from(random_tensor({out}, rng));
  return l;
}

// The first `rows` rows of x [N, in], a copy.
Tensor first_rows(const Tensor& x, int64_t rows) {
  Tensor out = Tensor::empty({rows, x.dim(1)});
  std::copy(x.data(), x.data() + out.numel(), out.data());
  return out;
}

TEST(PromptWeights, ManyRowsReadThePackedCopyAndGiveTheFloat32Product) {
  Rng rng(5);
  Linear l = random_linear(37, 70, rng);  // outputs: whole panels and part of one
  const Tensor x = random_tensor({40, 37}, rng);
  const Tensor before = l.forward(x).clone();  // oneDNN's sgemm on the float32 weight
  EXPECT_TRUE(l.prompt_copy().empty());

  l.set_decode_weights(DecodeWeights::kF32);
  ASSERT_FALSE(l.prompt_copy().empty());
  EXPECT_EQ(l.prompt_copy().bytes(), 4 * ops::packed_floats(70, 37));
  const Tensor packed = l.forward(x).clone();
  double worst = 0;
  for (int64_t i = 0; i < packed.numel(); ++i)
    worst = std::max(worst, double(std::fabs(packed.data()[i] - before.data()[i])));
  EXPECT_LT(worst, 1e-5);

  // The sums of the kernel's reference (the same order; equal bits where the build fuses
  // multiply-adds).
  Tensor expected = Tensor::empty({40, 70});
  std::vector<float> panels(ops::packed_floats(70, 37));
  ops::ref::pack_linear(l.weight.value.data(), panels.data(), 70, 37);
  ops::ref::linear_forward_packed(x.data(), panels.data(), l.bias.value.data(), expected.data(), 40,
                                  37, 70);
  for (int64_t i = 0; i < packed.numel(); ++i)
    ASSERT_NEAR(packed.data()[i], expected.data()[i], 1e-5) << "entry " << i;
}

TEST(PromptWeights, ARowGetsTheSameBitsWhateverTheOtherRows) {
  Rng rng(6);
  Linear l = random_linear(64, 48, rng);
  l.set_decode_weights(DecodeWeights::kF32);
  const Tensor x = random_tensor({53, 64}, rng);
  const Tensor all = l.forward(x).clone();
  for (int64_t rows : {ops::kRowInvariantMaxRows + 1, int64_t{30}}) {
    const Tensor some = l.forward(first_rows(x, rows)).clone();
    for (int64_t i = 0; i < some.numel(); ++i)
      ASSERT_EQ(some.data()[i], all.data()[i]) << rows << " rows, entry " << i;
  }
}

TEST(PromptWeights, FewRowsDoNotReadIt) {
  Rng rng(7);
  Linear l = random_linear(33, 20, rng);
  const Tensor x = random_tensor({ops::kRowInvariantMaxRows, 33}, rng);
  const Tensor before = l.forward(x).clone();
  l.set_decode_weights(DecodeWeights::kF32);  // no decode copy: the float32 weight
  const Tensor after = l.forward(x).clone();
  for (int64_t i = 0; i < after.numel(); ++i)
    ASSERT_EQ(after.data()[i], before.data()[i]) << "entry " << i;
}

}  // namespace
}  // namespace tinylm::nn
