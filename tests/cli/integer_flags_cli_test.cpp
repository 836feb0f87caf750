// Integers on the command line: every integer option is read as plain
// decimal within its type before CLI11 converts it, so a value out of range, a sign on
// an unsigned option or a non-decimal form exits 2 naming the flag (CLI11 alone clamps
// 99999999999999999999 to INT64_MAX, wraps -1 to 2^64 - 1 and reads 010 as octal).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

struct Case {
  std::string args, message;
};

TEST(IntegerFlags, BadIntegersExitTwoNamingTheFlag) {
  const std::vector<Case> cases = {
      {"eval --run nowhere --batch 99999999999999999999",
       "--batch: 99999999999999999999 is out of range"},
      {"eval --run nowhere --n -99999999999999999999",
       "--n: -99999999999999999999 is out of range"},
      {"eval --run nowhere --stride 0x10", "--stride: '0x10' is not an integer"},
      {"eval --run nowhere --stride 12abc", "--stride: '12abc' is not an integer"},
      {"demo nope --seed -1", "--seed: a non-negative integer is needed, got -1"},
      {"demo nope --seed 18446744073709551616", "--seed: 18446744073709551616 is too large"},
      {"demo nope --layers 9223372036854775808", "--layers: 9223372036854775808 is out of range"},
      // Values the flag cannot mean: 0 is not a stride, a thread count is not negative.
      {"eval --run nowhere --stride 0", "--stride"},
      {"prepare --tokenizer char --input nowhere --out nowhere --threads -5", "--threads"},
      {"info --embedding-table 0", "--embedding-table"},
      {"train --config configs/addition.json --out nowhere --stop-after -7",
       "--stop-after: must be at least 1, got -7"},
      {"finetune --task classify --stop-after 0", "--stop-after: must be at least 1, got 0"},
      {"data --show --d-model 100000000", "--d-model: must be in [1, 4096], got 100000000"},
      {"prepare --input nowhere --out nowhere --threads 5000", "--threads: must be in [0, 1024]"},
      {"tokenize --tokenizer word --ordinary --input nowhere", "--ordinary applies to BPE"},
      {"sample --run tests/fixtures/gpt2-tiny --temperature inf", "--temperature"},
      {"sample --checkpoint nowhere.safetensors", "--checkpoint nowhere.safetensors: no such file"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_tinylm(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(IntegerFlags, LeadingZerosAreDecimal) {
  // 010 is ten layers, not octal eight.
  const RunResult octal = run_tinylm("demo residual --layers 010 --dim 8");
  const RunResult ten = run_tinylm("demo residual --layers 10 --dim 8");
  ASSERT_EQ(octal.code, 0) << octal.output;
  EXPECT_EQ(octal.output, ten.output);
}

}  // namespace
}  // namespace tinylm::testing
