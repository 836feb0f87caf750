// tinylm export: a GGUF file written once, never over an existing file; bad flags exit 2.
#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "io/gguf.h"

namespace tinylm::testing {
namespace {

TEST(ExportCli, WritesAGgufAndNeverOverwrites) {
  const std::string dir = fresh_dir("export");
  const std::string out = dir + "/tiny.gguf";
  const std::string args =
      "export --model tests/fixtures/gpt2-tiny --format gguf --dtype q8_0 --out " + out;
  const RunResult r = run_tinylm(args);
  ASSERT_EQ(r.code, 0) << r.output;
  const Gguf g = load_gguf(out);
  EXPECT_EQ(g.get_string("general.architecture"), "gpt2");
  EXPECT_EQ(g.get_string("general.name"), "gpt2-tiny");
  EXPECT_EQ(g.tensor("blk.0.attn_qkv.weight").type, GgmlType::kQ8_0);
  const std::string before = read_file(out);
  expect_exit(2, args, "does not overwrite");
  EXPECT_EQ(read_file(out), before);
}

TEST(ExportCli, BadFlagsAreInputErrors) {
  const std::string out = fresh_dir("export-bad") + "/x.gguf";
  expect_exit(2, "export --model tests/fixtures/gpt2-tiny --format gguf --dtype q4_0 --out " + out,
              "q4_0");
  expect_exit(2, "export --model tests/fixtures/gpt2-tiny --format onnx --out " + out, "--format");
  expect_exit(2, "export --model no/such/run --format gguf --out " + out, "no/such/run");
  EXPECT_FALSE(file_exists(out));
}

}  // namespace
}  // namespace tinylm::testing
