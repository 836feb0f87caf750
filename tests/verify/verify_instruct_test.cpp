// verify_instruct on the gpt2-instruct fixture (tests/fixtures, a copy of the shared
// one): every check passes; a changed entry, a changed reference id or gradient fails
// the right check; a broken reference.json is an InputError naming the field.
#include "verify/verify_instruct.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "io/safetensors.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;
using testing::input_error;

const std::string kFixture = std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-instruct";

std::map<std::string, CheckResult> by_name(const std::vector<CheckResult>& results) {
  std::map<std::string, CheckResult> m;
  for (const auto& r : results) m[r.name] = r;
  return m;
}

// A copy of the fixture in a temp folder (the large files as links) to corrupt.
class FixtureCopy {
 public:
  explicit FixtureCopy(const std::string& name)
      : dir_(fs::temp_directory_path() /
             ("tinylm-instruct-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* f : {"config.json", "entries.json", "reference.json"})
      fs::copy_file(kFixture + "/" + f, dir_ / f);
    for (const char* f : {"model.safetensors", "reference.safetensors"})
      fs::create_symlink(kFixture + "/" + f, dir_ / f);
  }
  ~FixtureCopy() { fs::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }
  std::string file(const std::string& f) const { return (dir_ / f).string(); }
  nlohmann::json json(const std::string& f) const {
    return nlohmann::json::parse(read_file(file(f)));
  }
  void write(const std::string& f, const nlohmann::json& j) const {
    fs::remove(file(f));
    write_file_atomic(file(f), j.dump(1));
  }

 private:
  fs::path dir_;
};

TEST(VerifyInstruct, FixturePassesEveryCheck) {
  const auto results = verify_instruct(kFixture);
  const auto m = by_name(results);
  for (const char* c : {"plain", "masked_prompt"})
    for (const char* check : {".ids", ".targets", ".loss", ".grad"})
      ASSERT_TRUE(m.count(std::string(c) + check)) << c << check;
  for (const auto& r : results) EXPECT_TRUE(r.pass) << r.name << ": " << r.error << " " << r.detail;
  EXPECT_NE(m.at("plain.targets").detail.find("179 counted"), std::string::npos);
  EXPECT_NE(m.at("masked_prompt.targets").detail.find("59 counted"), std::string::npos);
  EXPECT_NE(m.at("plain.grad").detail.find("3 tensors"), std::string::npos);
}

TEST(VerifyInstruct, ChangedEntriesFailTheIds) {
  const FixtureCopy copy("entry");
  nlohmann::json entries = copy.json("entries.json");
  entries[1]["output"] = "45 kilometers is 45,000 meters.";  // the response
  entries[2]["input"] = "";                                  // the "### Input:" section goes
  copy.write("entries.json", entries);
  const auto m = by_name(verify_instruct(copy.dir()));
  EXPECT_FALSE(m.at("plain.ids").pass);
  EXPECT_FALSE(m.at("plain.targets").pass);
  EXPECT_FALSE(m.at("masked_prompt.ids").pass);
  EXPECT_FALSE(m.at("plain.loss").pass);
}

TEST(VerifyInstruct, AWrongReferenceLossOrCountFails) {
  const FixtureCopy copy("loss");
  nlohmann::json ref = copy.json("reference.json");
  ref["cases"]["plain"]["loss"] = ref["cases"]["plain"]["loss"].get<double>() * (1 + 1e-4);
  ref["cases"]["masked_prompt"]["counted_targets"] = 60;
  copy.write("reference.json", ref);
  const auto m = by_name(verify_instruct(copy.dir()));
  EXPECT_FALSE(m.at("plain.loss").pass);
  EXPECT_TRUE(m.at("plain.ids").pass);
  EXPECT_FALSE(m.at("masked_prompt.targets").pass);
  EXPECT_TRUE(m.at("masked_prompt.loss").pass);
}

TEST(VerifyInstruct, BrokenReferenceJsonNamesFileAndField) {
  const FixtureCopy copy("json");
  const nlohmann::json good = copy.json("reference.json");
  const std::string path = copy.file("reference.json");
  auto with = [&](auto edit) {
    nlohmann::json j = good;
    edit(j);
    copy.write("reference.json", j);
    return input_error([&] { verify_instruct(copy.dir()); });
  };
  EXPECT_EQ(with([](nlohmann::json& j) { j.erase("pad_and_end_token"); }),
            path + ": missing field \"pad_and_end_token\"");
  EXPECT_EQ(with([](nlohmann::json& j) { j["ignore_index"] = "-100"; }),
            path + ": ignore_index must be an integer");
  EXPECT_EQ(with([](nlohmann::json& j) { j["cases"]["plain"]["mask_prompt"] = 0; }),
            path + ": cases.plain.mask_prompt must be true or false");
  EXPECT_EQ(with([](nlohmann::json& j) { j["cases"]["masked_prompt"].erase("loss"); }),
            path + ": cases.masked_prompt: missing field \"loss\"");
  EXPECT_EQ(with([](nlohmann::json& j) { j["cases"] = nlohmann::json::array(); }),
            path + ": cases must be a JSON object");
  EXPECT_EQ(with([](nlohmann::json& j) { j["task"] = "classify"; }),
            path + ": task: expected \"instruct\", got \"classify\"");
  copy.write("reference.json", good);
  copy.write("entries.json", nlohmann::json::parse(R"([{"instruction": "x"}])"));
  EXPECT_EQ(input_error([&] { verify_instruct(copy.dir()); }),
            copy.file("entries.json") + ": entry 0: missing \"output\"");
}

}  // namespace
}  // namespace tinylm
