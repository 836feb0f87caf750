// `tinylm verify` on the instruction fixture: passes on tests/fixtures/gpt2-instruct,
// fails (exit 1) on a copy whose entries were changed, and exits 2 naming the field on
// a copy whose reference.json lacks one.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;
using testing::fresh_dir;
using testing::run_tinylm;

const std::string kFixture = "tests/fixtures/gpt2-instruct";

std::string copy_fixture(const std::string& name) {
  const std::string dir = fresh_dir(name);
  for (const auto& f : fs::directory_iterator(std::string(tinylm::source_dir()) + "/" + kFixture))
    fs::copy_file(f.path(), dir + "/" + f.path().filename().string());
  return dir;
}

TEST(VerifyInstructCli, FixturePasses) {
  const auto r = run_tinylm("verify " + kFixture);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("plain.ids"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("masked_prompt.grad"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verify: all checks passed"), std::string::npos) << r.output;
}

TEST(VerifyInstructCli, ChangedEntriesFail) {
  const std::string dir = copy_fixture("instruct-corrupt");
  auto entries = nlohmann::json::parse(read_file(dir + "/entries.json"));
  entries[0]["instruction"] = "Evaluate the following phrase.";
  fs::remove(dir + "/entries.json");
  write_file_atomic(dir + "/entries.json", entries.dump());
  const auto r = run_tinylm("verify " + dir);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("plain.ids"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verify: FAILED"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(VerifyInstructCli, MissingReferenceFieldExitsTwo) {
  const std::string dir = copy_fixture("instruct-badref");
  auto ref = nlohmann::json::parse(read_file(dir + "/reference.json"));
  ref.erase("ignore_index");
  fs::remove(dir + "/reference.json");
  write_file_atomic(dir + "/reference.json", ref.dump());
  const auto r = run_tinylm("verify " + dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(dir + "/reference.json: missing field \"ignore_index\""), std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm
