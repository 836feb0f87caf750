// The packed copy a prompt reads (decode/prompt_weights.h) through a linear layer's
// decoder (decode/layer_decoders.h): products of more than ops::kRowInvariantMaxRows rows
// read it, give the float32 product, and give each row the same bits whatever the other
// rows.
#include <gtest/gtest.h>

#include <cmath>

#include "common/gradcheck.h"
#include "decode/layer_decoders.h"
#include "ops/linear_packed.h"
#include "ops/matmul.h"

namespace tinylm::decode {
namespace {

using testing::random_tensor;

nn::Linear random_linear(int64_t in, int64_t out, Rng& rng) {
  nn::Linear l(in, out, /*bias=*/true);
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
  nn::Linear l = random_linear(37, 70, rng);  // outputs: whole panels and part of one
  const Tensor x = random_tensor({40, 37}, rng);
  const Tensor before = l.forward(x).clone();  // oneDNN's sgemm on the float32 weight

  LinearDecoder d(l, DecodeWeights::kF32);
  ASSERT_FALSE(d.prompt_copy().empty());
  EXPECT_EQ(d.prompt_copy().bytes(), 4 * ops::packed_floats(70, 37));
  const Tensor packed = d.forward(x).clone();
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
  nn::Linear l = random_linear(64, 48, rng);
  LinearDecoder d(l, DecodeWeights::kF32);
  const Tensor x = random_tensor({53, 64}, rng);
  const Tensor all = d.forward(x).clone();
  for (int64_t rows : {ops::kRowInvariantMaxRows + 1, int64_t{30}}) {
    const Tensor some = d.forward(first_rows(x, rows)).clone();
    for (int64_t i = 0; i < some.numel(); ++i)
      ASSERT_EQ(some.data()[i], all.data()[i]) << rows << " rows, entry " << i;
  }
}

TEST(PromptWeights, FewRowsDoNotReadIt) {
  Rng rng(7);
  nn::Linear l = random_linear(33, 20, rng);
  const Tensor x = random_tensor({ops::kRowInvariantMaxRows, 33}, rng);
  const Tensor before = l.forward(x).clone();
  LinearDecoder d(l, DecodeWeights::kF32);  // no decode copy: the float32 weight
  const Tensor after = d.forward(x).clone();
  for (int64_t i = 0; i < after.numel(); ++i)
    ASSERT_EQ(after.data()[i], before.data()[i]) << "entry " << i;
}

}  // namespace
}  // namespace tinylm::decode
