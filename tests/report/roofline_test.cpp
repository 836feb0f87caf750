// The device table and the roofline analysis: data-sheet peaks, the compute/memory
// decision against the ridge point, memory fit, and the KV cache of a generated token.
#include "report/roofline.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace tinylm::report {
namespace {

TEST(Device, DataSheetPeaks) {
  const Device rtx = find_device("rtx4060-laptop");
  EXPECT_NEAR(rtx.fp32_flops, 11.61e12, 0.01e12);  // 3,072 cores x 1,890 MHz x 2
  EXPECT_DOUBLE_EQ(rtx.bandwidth, 256e9);          // the laptop part, not 288 GB/s
  EXPECT_DOUBLE_EQ(find_device("h100").bf16_flops, 989e12);
  EXPECT_NE(testing::input_error([] { find_device("tpu"); }).find("unknown device 'tpu'"),
            std::string::npos);
}

TEST(Device, CpuProbeMeasuresSomething) {
  const Device cpu = probe_cpu(1);
  EXPECT_TRUE(cpu.measured);
  EXPECT_GT(cpu.fp32_flops, 1e8);
  EXPECT_GT(cpu.bandwidth, 1e8);
  EXPECT_GE(cpu.simd_floats, 4);
}

TEST(Roofline, ProductsAgainstTheRidgePoint) {
  const GPTConfig c = GPTConfig::preset("gpt2-124m");
  const DeviceAnalysis a = analyse_on_device(c, 8, 1024, find_device("a100"), "bf16", 0.4);
  ASSERT_EQ(a.products.size(), 7u);
  double forward = 0;
  for (const MatmulRoof& p : a.products) {
    EXPECT_NEAR(p.flops, 2.0 * p.M * p.N * p.K * p.count * p.copies, 1e-6 * p.flops) << p.name;
    EXPECT_NEAR(p.bytes, 2.0 * (p.M * p.K + p.K * p.N + p.M * p.N) * p.count * p.copies, 1)
        << p.name;
    EXPECT_EQ(p.compute_bound, p.intensity >= a.ridge) << p.name;
    forward += p.flops;
  }
  // The big projections are compute-bound; a head's 64-wide att @ V is not.
  EXPECT_TRUE(a.products[0].compute_bound);
  EXPECT_FALSE(a.products[2].compute_bound);
  EXPECT_NEAR(a.train_flops, 3 * forward, 1e-6 * forward);
  EXPECT_NEAR(a.mfu_step_seconds, a.train_flops / (312e12 * 0.4), 1e-9);
  EXPECT_FALSE(a.floor_governs);  // a long step at batch 8 has work enough for 40% MFU
  EXPECT_DOUBLE_EQ(a.predicted_step_seconds, a.mfu_step_seconds);
  EXPECT_LE(a.roofline_step_seconds, a.predicted_step_seconds);
  // KV cache at 1,024 tokens in bf16: 2 x 12 layers x 1,024 x 768 x 2 bytes.
  EXPECT_DOUBLE_EQ(a.kv_cache_bytes, 2.0 * 12 * 1024 * 768 * 2);
  EXPECT_LT(a.decode_flops / a.decode_bytes, a.ridge);  // decoding is memory-bound
}

// A short step (T 8, batch 1) is memory-bound: 40% MFU would beat the roofline floor,
// so the floor is the prediction, and the tokens/s follow from it.
TEST(Roofline, PredictionNeverBeatsTheFloor) {
  const GPTConfig c = GPTConfig::preset("gpt2-124m");
  const DeviceAnalysis a = analyse_on_device(c, 1, 8, find_device("h100"), "fp32", 0.4);
  EXPECT_LT(a.mfu_step_seconds, a.roofline_step_seconds);
  EXPECT_TRUE(a.floor_governs);
  EXPECT_DOUBLE_EQ(a.predicted_step_seconds, a.roofline_step_seconds);
  EXPECT_DOUBLE_EQ(a.tokens_per_second, 8 / a.roofline_step_seconds);
  EXPECT_NE(render_device_analysis(a).find("the roofline floor governs"), std::string::npos);
}

TEST(Roofline, MemoryFit) {
  const GPTConfig xl = GPTConfig::preset("gpt2-1558m");
  const DeviceAnalysis laptop =
      analyse_on_device(xl, 1, 128, find_device("rtx4060-laptop"), "fp32", 0.4);
  EXPECT_FALSE(laptop.fp32_fits);  // 1.56B parameters x 16 bytes = 25 GB
  EXPECT_GT(laptop.fp32_bytes, 16.0 * 1.5e9);
  const DeviceAnalysis h200 = analyse_on_device(xl, 1, 128, find_device("h200"), "bf16", 0.4);
  EXPECT_TRUE(h200.bf16_fits);
  EXPECT_NE(render_device_analysis(h200).find("fits"), std::string::npos);
  EXPECT_NE(testing::input_error([&] {
              analyse_on_device(xl, 1, 128, probe_cpu(1), "bf16", 0.4);
            }).find("no bf16 rate"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm::report
