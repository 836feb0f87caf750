// The fused attention kernels (cuda/flash_attention.cu) against ops::ref's tiled contract:
// they run with tensor-core precision (TF32 products, fast exponentials), so they are
// compared by relative error (||got - ref|| / ||ref|| per output), not by the op table's
// float32 tolerances. (They are off by default; the fixture turns them on.)
// Odd shapes: sets, rows and head sizes that fill no tile, Tq < Tk and Tq > Tk, causal and
// padding masks, a fully masked row, attention dropout. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cuda/device.h"
#include "cuda/kernels.h"
#include "cuda/products.h"
#include "ops/attention.h"

namespace tinylm::cuda {
namespace {

struct FlashCase {
  ops::AttentionShape s;
  bool causal = false;
  bool padding = false;  // an additive mask per set: the last keys hidden, row 1 fully masked
  float p = 0.0f;        // attention dropout
};

std::vector<float> normal(size_t n, std::mt19937& gen) {
  std::normal_distribution<float> dist;
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

std::vector<float> padding_mask(const ops::AttentionShape& s) {
  std::vector<float> add(s.N * s.Tq * s.Tk, 0.0f);
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t i = 0; i < s.Tq; ++i)
      for (int64_t j = 0; j < s.Tk; ++j)
        if (j >= s.Tk - 1 - n % 3 || (n == 0 && i == 1)) add[(n * s.Tq + i) * s.Tk + j] = -INFINITY;
  return add;
}

// ||got - want|| / ||want|| (0 when both are zero); infinities must match exactly.
double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0.0, norm = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isinf(want[i]) || std::isinf(got[i])) {
      if (got[i] != want[i]) return INFINITY;
      continue;
    }
    diff += (static_cast<double>(got[i]) - want[i]) * (static_cast<double>(got[i]) - want[i]);
    norm += static_cast<double>(want[i]) * want[i];
  }
  return norm == 0.0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

std::string name_of(const FlashCase& c) {
  const auto& s = c.s;
  return "N " + std::to_string(s.N) + " Tq " + std::to_string(s.Tq) + " Tk " +
         std::to_string(s.Tk) + " Dk " + std::to_string(s.Dk) + " Dv " + std::to_string(s.Dv) +
         (c.causal ? " causal" : "") + (c.padding ? " padding" : "") +
         (c.p > 0 ? " p " + std::to_string(c.p) : "");
}

void check_case(const FlashCase& c) {
  SCOPED_TRACE(name_of(c));
  const auto& s = c.s;
  std::mt19937 gen(static_cast<unsigned>(s.N * 131 + s.Tq * 7 + s.Dk));
  const auto q = normal(s.N * s.Tq * s.Dk, gen), k = normal(s.N * s.Tk * s.Dk, gen),
             v = normal(s.N * s.Tk * s.Dv, gen), dy = normal(s.N * s.Tq * s.Dv, gen);
  const std::vector<float> add = c.padding ? padding_mask(s) : std::vector<float>();
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.Dk));
  constexpr uint64_t kKey = 1234;

  // ops::ref on the host
  const ops::AttentionMask host_mask{c.causal, c.padding ? add.data() : nullptr, s.N};
  std::vector<float> y(s.N * s.Tq * s.Dv), lse(s.N * s.Tq), dq(q.size()), dk(k.size()),
      dv(v.size());
  ops::ref::attention_forward_tiled(q.data(), k.data(), v.data(), y.data(), lse.data(), s, scale,
                                    host_mask, c.p, kKey);
  ops::ref::attention_backward_tiled(dy.data(), q.data(), k.data(), v.data(), y.data(), lse.data(),
                                     dq.data(), dk.data(), dv.data(), s, scale, host_mask, c.p,
                                     kKey);

  // the GPU, fused: backward from the GPU's own y and lse
  DeviceBuffer<float> gq(q), gk(k), gv(v), gdy(dy), gy(y.size()), glse(lse.size()), gdq(q.size()),
      gdk(k.size()), gdv(v.size());
  DeviceBuffer<float> gadd(c.padding ? add : std::vector<float>{0.0f});
  const ops::AttentionMask mask{c.causal, c.padding ? gadd.data() : nullptr, s.N};
  cuda::attention_forward_tiled(gq.data(), gk.data(), gv.data(), gy.data(), glse.data(), s, scale,
                                mask, c.p, kKey);
  cuda::attention_backward_tiled(gdy.data(), gq.data(), gk.data(), gv.data(), gy.data(),
                                 glse.data(), gdq.data(), gdk.data(), gdv.data(), s, scale, mask,
                                 c.p, kKey);

  // TF32 operands (10-bit mantissas): about 1e-3 relative error per product
  constexpr double kTolerance = 5e-3;
  EXPECT_LT(relative_error(gy.download(), y), kTolerance) << "y";
  EXPECT_LT(relative_error(glse.download(), lse), kTolerance) << "lse";
  EXPECT_LT(relative_error(gdq.download(), dq), kTolerance) << "dq";
  EXPECT_LT(relative_error(gdk.download(), dk), kTolerance) << "dk";
  EXPECT_LT(relative_error(gdv.download(), dv), kTolerance) << "dv";
}

class FlashAttention : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (device_count(&why) == 0) GTEST_SKIP() << "no CUDA GPU: " << why;
    set_matmul_precision(ops::MatmulPrecision::kTf32);
    set_flash_attention(true);  // off by default: the tests run the fused kernels themselves
  }
  void TearDown() override {
    set_matmul_precision(ops::MatmulPrecision::kFp32);
    set_flash_attention(false);
  }
};

TEST_F(FlashAttention, MatchesTheReferenceOnOddShapes) {
  const FlashCase cases[] = {
      {{1, 1, 1, 1, 1}},
      {{6, 7, 7, 5, 4}, true},
      {{3, 33, 33, 16, 16}, true, true},
      {{2, 7, 65, 8, 3}, true},  // Tq < Tk: the last query sees every key
      {{2, 70, 6, 8, 8}, true},  // Tq > Tk: the first queries see no key
      {{3, 5, 9, 4, 6}, false, true, 0.5f},
      {{2, 129, 300, 64, 64}, true, true},
      {{4, 100, 100, 64, 48}, false, false, 0.2f},
      {{4, 256, 256, 64, 64}, true, false, 0.2f},  // the 10.65M model's per-head shape
      {{2, 200, 200, 32, 32}, true, false, 1.0f},  // everything dropped
  };
  for (const FlashCase& c : cases) check_case(c);
}

// The dropout mask is the one every backend draws: with p = 0.5 the fused kernels match
// ref only if each element's keep is the same (a different mask is a different y).
TEST_F(FlashAttention, DrawsTheReferenceDropoutMask) {
  check_case({{8, 64, 64, 64, 64}, true, false, 0.5f});
}

}  // namespace
}  // namespace tinylm::cuda
