// The one --out rule of every model folder tinylm writes (export --format hf, lora merge):
// a trailing '/' names the folder itself, a new name or an empty folder is taken,
// anything else is refused naming it, and a failing write leaves the place as it was
// (no temp folder, no parent it made).
#include "export/model_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>

#include "common/input_error.h"
#include "tokenizer/char_tokenizer.h"
#include "util/files.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;
using testing::input_error;

std::string fresh_dir(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("tinylm-model-folder-" + tag + "-" +
                                                    std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  return dir.string();
}

// Every name under dir (links not followed).
std::set<std::string> listing(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.insert(e.path().string());
  return names;
}

void write_config(const std::string& dir) {
  std::ofstream(dir + "/config.json") << "{}";
}

TEST(ModelFolder, ATrailingSlashNamesTheFolderAndDotsNameNone) {
  const std::string dir = fresh_dir("names");
  EXPECT_EQ(checked_model_folder(dir + "/hf/"), dir + "/hf");
  EXPECT_EQ(checked_model_folder(dir + "/hf//"), dir + "/hf");
  for (const std::string& bad : {dir + "/.", dir + "/..", dir + "/hf/.", std::string("/")})
    EXPECT_NE(input_error([&] { checked_model_folder(bad); }).find("names no new file or folder"),
              std::string::npos)
        << bad;
  fs::remove_all(dir);
}

TEST(ModelFolder, AnEmptyFolderIsTakenAndAnythingElseRefused) {
  const std::string dir = fresh_dir("taken");
  fs::create_directory(dir + "/empty");
  fs::create_directory(dir + "/full");
  std::ofstream(dir + "/full/x") << "x";
  std::ofstream(dir + "/file") << "x";
  fs::create_directory_symlink(dir + "/empty", dir + "/link");
  const CharTokenizer tok = CharTokenizer::from_corpus("abc");
  write_model_folder(dir + "/empty/", &tok, 8, write_config);
  EXPECT_TRUE(fs::exists(dir + "/empty/config.json"));
  EXPECT_TRUE(fs::exists(dir + "/empty/tinylm_tokenizer.json"));
  for (const char* name : {"/full", "/file", "/empty"}) {  // "empty" is full now
    const std::string out = dir + name;
    EXPECT_NE(input_error([&] { checked_model_folder(out); })
                  .find("--out " + out +
                        " already exists and is not an empty folder (tinylm "
                        "does not overwrite it)"),
              std::string::npos)
        << out;
  }
  EXPECT_NE(input_error([&] { checked_model_folder(dir + "/link"); }).find("symbolic link"),
            std::string::npos);
  EXPECT_EQ(input_error([&] { checked_model_folder(dir + "/new"); }), "");
  fs::remove_all(dir);
}

TEST(ModelFolder, AFailingWriteLeavesThePlaceAsItWas) {
  const std::string dir = fresh_dir("failing");
  const std::set<std::string> before = listing(dir);
  EXPECT_THROW(write_model_folder(dir + "/a/b/out", nullptr, 8,
                                  [](const std::string& tmp) {
                                    write_config(tmp);
                                    throw std::runtime_error("disk full");
                                  }),
               std::runtime_error);
  EXPECT_EQ(listing(dir), before);  // no temp folder, no a/ or a/b/
  EXPECT_FALSE(write_model_folder(dir + "/a/b/out", nullptr, 8, write_config));  // no tokenizer
  EXPECT_TRUE(fs::exists(dir + "/a/b/out/config.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm
