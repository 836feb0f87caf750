// tinylm serve's bad inputs: each one message and exit 2 before anything listens.
// (Serving itself: tests/serve, and tests/serve/openai_client/run.sh drives the binary
// with the OpenAI client, then stops it with SIGTERM.)
#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

void expect_refused(const std::string& args, const std::string& says) {
  const RunResult r = run_tinylm("serve " + args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
}

TEST(ServeCli, BadInputsExit2WithOneMessage) {
  const std::string tiny = "--model tests/fixtures/gpt2-tiny ";
  expect_refused("", "pass one of --run DIR, --model SRC or --preset NAME");
  expect_refused("--model tests/fixtures/gpt2-tiny --preset gpt2-124m", "pass one of");
  expect_refused("--model tests/fixtures/no-such-folder --port 0", "no-such-folder");
  expect_refused(tiny + "--parallel 0", "--parallel");
  expect_refused(tiny + "--parallel 17", "--parallel");
  expect_refused(tiny + "--port 70000", "--port");
  expect_refused(tiny + "--timeout 0", "--timeout");
  expect_refused(tiny + "--port 0 --ctx 65", "--ctx 65 exceeds the model's context");
  expect_refused(tiny + "--port 0 --api-key-file tests/fixtures/no-key", "no-key");
  expect_refused(tiny + "--port 0 --host 203.0.113.7", "cannot listen on 203.0.113.7");
  expect_refused("--model tests/fixtures/gpt2-micro-classify --port 0", "tinylm classify");
}

}  // namespace
}  // namespace tinylm::testing
