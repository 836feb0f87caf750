// --device and --precision: bad values and a device that is not there are input errors
// (exit 2) that write nothing; on a machine with a GPU the same commands run there
// (scripts/gpu-check.sh checks what they compute).
#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

const std::string kTrain =
    "train --config configs/shakespeare-char-cpu.json --quiet --set train.max_steps=1 "
    "--set train.eval_iters=1 --set sample.max_new_tokens=0 --out ";

TEST(DeviceCli, UnknownDevicesAndPrecisionsAreInputErrors) {
  const std::string dir = fresh_dir("device-flags");
  expect_exit(2, kTrain + dir + "/a --device gpu", "--device");
  expect_exit(2, kTrain + dir + "/b --precision fp16", "--precision");
  expect_exit(2, "generate --model tests/fixtures/gpt2-tiny --prompt hi --device tpu", "--device");
  expect_exit(2, "verify tests/fixtures/gpt2-tiny --device metal", "--device");
  EXPECT_FALSE(file_exists(dir + "/a"));
  EXPECT_FALSE(file_exists(dir + "/b"));
}

// The CPU computes fp32 and bf16 (ops/matmul_bf16.h), not tf32.
TEST(DeviceCli, TheCpuComputesFp32AndBf16) {
  const std::string dir = fresh_dir("device-precision");
  expect_exit(2, kTrain + dir + "/run --precision tf32", "fp32 or bf16");
  EXPECT_FALSE(file_exists(dir + "/run"));
  const RunResult r = run_tinylm(kTrain + dir + "/ok --precision fp32 --device cpu");
  EXPECT_EQ(r.code, 0) << r.output;
  const RunResult bf16 = run_tinylm(kTrain + dir + "/bf16 --precision bf16");
  EXPECT_EQ(bf16.code, 0) << bf16.output;
}

// Without a GPU (this project's CI machines), --device cuda says why and writes nothing;
// with one, the run trains there.
TEST(DeviceCli, CudaWithoutAGpuSaysWhy) {
  const std::string dir = fresh_dir("device-cuda");
  const RunResult r = run_tinylm(kTrain + dir + "/run --device cuda");
  if (r.code == 0) GTEST_SKIP() << "a GPU is here: the run trained on it";
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--device cuda: "), std::string::npos) << r.output;
  EXPECT_FALSE(file_exists(dir + "/run"));
  expect_exit(2, "verify tests/fixtures/gpt2-tiny --device cuda", "--device cuda: ");
  expect_exit(2,
              "generate --model tests/fixtures/gpt2-tiny --prompt hi --max-new-tokens 2 "
              "--device cuda",
              "--device cuda: ");
}

}  // namespace
}  // namespace tinylm::testing
