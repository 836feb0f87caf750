// Files, JSON from outside and size arithmetic: a folder is not read as an
// empty file, unwritable outputs are bad input with the system's reason, a failed append
// is an error (not a dropped line), duplicate JSON keys are refused, every JSON field
// read names its file and path, and size products never overflow silently.
// Writes never go through a symbolic link, temp names are unique
// and made exclusively, and two writers of one path never break each other.
#include "util/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "common/input_error.h"
#include "util/checked_math.h"
#include "util/json_read.h"

namespace tinylm {
namespace {

using testing::input_error;

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tinylm-files-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(Files, AFolderIsNotAFile) {
  const std::string dir = temp_dir("folder");
  EXPECT_NE(input_error([&] { read_file(dir); }).find("is a folder"), std::string::npos);
  EXPECT_NE(input_error([&] { write_file_atomic(dir, "x"); }).find("is a folder"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Files, UnwritableOutputsAreInputErrorsWithTheReason) {
  const std::string dir = temp_dir("unwritable");
  std::ofstream(dir + "/file") << "x";
  EXPECT_NE(input_error([&] {
              write_file_atomic(dir + "/missing/out.txt", "x");
            }).find("No such file or directory"),
            std::string::npos);
  EXPECT_NE(
      input_error([&] { write_file_atomic(dir + "/file/out.txt", "x"); }).find("Not a directory"),
      std::string::npos);
  EXPECT_NE(input_error([&] { create_folder(dir + "/file/sub", "--out"); }).find("--out"),
            std::string::npos);
  write_file_atomic(dir + "/ok.txt", "hello");
  EXPECT_EQ(read_file(dir + "/ok.txt"), "hello");
  EXPECT_FALSE(file_exists(dir + "/ok.txt.tmp"));
  std::filesystem::remove_all(dir);
}

TEST(Files, AFailedAppendIsAnError) {
  AppendFile full("/dev/full", false);  // every write fails with ENOSPC
  EXPECT_THROW(full.append("{\"step\": 1}\n"), std::runtime_error);
  const std::string dir = temp_dir("append");
  {
    AppendFile log(dir + "/log.jsonl", true);
    log.append("a\n");
    log.append("b\n");
  }
  EXPECT_EQ(read_file(dir + "/log.jsonl"), "a\nb\n");
  std::filesystem::remove_all(dir);
}

// A file outside the folder under test, and what it must still hold afterwards.
struct Outside {
  std::string path;
  explicit Outside(const std::string& p) : path(p) { std::ofstream(path) << "precious"; }
  bool untouched() const { return read_file(path) == "precious"; }
};

// The names in dir (not following links).
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Files, AtomicWritesNeverFollowALink) {
  const std::string dir = temp_dir("links");
  const Outside outside(dir + "/outside");
  std::filesystem::create_directory(dir + "/run");
  // A link planted under the old fixed temp name, and one at the destination itself.
  std::filesystem::create_symlink(outside.path, dir + "/run/report.html.tmp");
  std::filesystem::create_symlink(outside.path, dir + "/run/report.html");
  write_file_atomic(dir + "/run/report.html", "page");
  EXPECT_TRUE(outside.untouched());
  EXPECT_FALSE(is_symlink(dir + "/run/report.html"));  // the link was replaced
  EXPECT_EQ(read_file(dir + "/run/report.html"), "page");
  EXPECT_TRUE(is_symlink(dir + "/run/report.html.tmp"));  // not ours: left alone
  EXPECT_EQ(names_in(dir + "/run"), (std::vector<std::string>{"report.html", "report.html.tmp"}));
  // A link to a folder at the destination is replaced too, not written into.
  std::filesystem::create_directory(dir + "/elsewhere");
  std::filesystem::create_symlink(dir + "/elsewhere", dir + "/run/config.json");
  write_file_atomic(dir + "/run/config.json", "{}");
  EXPECT_EQ(read_file(dir + "/run/config.json"), "{}");
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/elsewhere"));
  std::filesystem::remove_all(dir);
}

TEST(Files, TwoWritersOfOnePathNeverShareATempFile) {
  const std::string dir = temp_dir("writers");
  const std::string path = dir + "/report.html";
  std::vector<std::string> errors(2);
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w)
    writers.emplace_back([&, w] {
      try {
        for (int i = 0; i < 200; ++i) write_file_atomic(path, std::string(4096, 'a' + w));
      } catch (const std::exception& e) {
        errors[w] = e.what();
      }
    });
  for (auto& t : writers) t.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
  const std::string last = read_file(path);
  EXPECT_TRUE(last == std::string(4096, 'a') || last == std::string(4096, 'b'));
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"report.html"});  // no temp file left
  std::filesystem::remove_all(dir);
}

TEST(Files, AppendingNeverFollowsALink) {
  const std::string dir = temp_dir("append-links");
  const Outside outside(dir + "/outside");
  const std::string log = dir + "/log.jsonl";
  std::filesystem::create_symlink(outside.path, log);
  // Appending to a link is refused, naming it.
  EXPECT_NE(input_error([&] { AppendFile(log, false); }).find(log + " is a symbolic link"),
            std::string::npos);
  EXPECT_NE(input_error([&] { ::close(open_for_writing(log, O_RDWR)); }).find("symbolic link"),
            std::string::npos);
  EXPECT_TRUE(outside.untouched());
  // A new log replaces the link with a file of its own.
  {
    AppendFile fresh(log, true);
    fresh.append("a\n");
  }
  EXPECT_TRUE(outside.untouched());
  EXPECT_FALSE(is_symlink(log));
  EXPECT_EQ(read_file(log), "a\n");
  std::filesystem::remove_all(dir);
}

TEST(Files, TempFoldersAreNewAndNeverTakeAnExistingName) {
  const std::string dir = temp_dir("temp-folders");
  std::filesystem::create_directory(dir + "/m.tmp-merge");
  std::ofstream(dir + "/m.tmp-merge/n") << "x";
  const std::string a = make_temp_folder(dir + "/m", "--out");
  const std::string b = make_temp_folder(dir + "/m", "--out");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind(dir + "/m.tmp-", 0), 0u) << a;
  EXPECT_TRUE(std::filesystem::is_empty(a));
  EXPECT_EQ(read_file(dir + "/m.tmp-merge/n"), "x");  // someone else's: untouched
  // A folder under a file, or in a missing folder: InputError naming the path.
  std::ofstream(dir + "/file") << "x";
  EXPECT_NE(input_error([&] {
              make_temp_folder(dir + "/file/m", "--out");
            }).find("--out " + dir + "/file/m: cannot create the folder: Not a directory"),
            std::string::npos);
  EXPECT_NE(input_error([&] {
              make_temp_folder(dir + "/missing/m", "--out");
            }).find("No such file or directory"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// A new file or folder is never published over something that appeared at its name
// while it was written (export's --out): InputError, what is there kept, nothing left over.
TEST(Files, NewFilesAndFoldersNeverReplaceWhatAppeared) {
  const std::string dir = temp_dir("no-replace");
  write_new_file_atomic(dir + "/a.gguf", "first");
  EXPECT_EQ(read_file(dir + "/a.gguf"), "first");
  EXPECT_NE(input_error([&] {
              write_new_file_atomic(dir + "/a.gguf", "second");
            }).find("appeared while it was being written"),
            std::string::npos);
  EXPECT_EQ(read_file(dir + "/a.gguf"), "first");
  const std::string temp = make_temp_folder(dir + "/hf", "--out");
  std::ofstream(temp + "/config.json") << "{}";
  std::filesystem::create_directory(dir + "/hf");  // empty: a plain rename would replace it
  EXPECT_NE(input_error([&] {
              publish_new_folder(temp, dir + "/hf");
            }).find("appeared while it was being written"),
            std::string::npos);
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/hf"));
  std::filesystem::remove(dir + "/hf");
  publish_new_folder(temp, dir + "/hf");
  EXPECT_EQ(read_file(dir + "/hf/config.json"), "{}");
  size_t entries = 0;  // a.gguf and hf: no temp file or folder left
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 2u);
  std::filesystem::remove_all(dir);
}

TEST(Files, OwnFoldersReplaceALinkInsteadOfWritingThroughIt) {
  const std::string dir = temp_dir("own-folders");
  std::filesystem::create_directory(dir + "/elsewhere");
  const Outside outside(dir + "/elsewhere/adapter_config.json");
  std::filesystem::create_directory(dir + "/run");
  std::filesystem::create_symlink(dir + "/elsewhere", dir + "/run/adapter");
  create_own_folder(dir + "/run/adapter");
  EXPECT_FALSE(is_symlink(dir + "/run/adapter"));
  EXPECT_TRUE(is_directory(dir + "/run/adapter"));
  write_file_atomic(dir + "/run/adapter/adapter_config.json", "{}");
  EXPECT_TRUE(outside.untouched());
  create_own_folder(dir + "/run/adapter");  // an existing folder is kept as it is
  EXPECT_EQ(read_file(dir + "/run/adapter/adapter_config.json"), "{}");
  create_own_folder(dir + "/new/deeper/hf");  // missing parents are made
  EXPECT_TRUE(is_directory(dir + "/new/deeper/hf"));
  std::ofstream(dir + "/run/hf") << "x";
  EXPECT_NE(input_error([&] { create_own_folder(dir + "/run/hf"); }).find("is not a folder"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(JsonRead, DuplicateKeysAreRefusedAtAnyDepth) {
  EXPECT_NE(input_error([] {
              parse_json(R"({"a": 1, "a": 2})", "c.json");
            }).find("c.json: duplicate key \"a\""),
            std::string::npos);
  EXPECT_NE(input_error([] {
              parse_json(R"({"x": {"b": 1, "c": [{"b": 1, "b": 2}]}})", "c.json");
            }).find("duplicate key \"b\""),
            std::string::npos);
  // The same key in different objects is fine.
  EXPECT_EQ(parse_json(R"({"a": {"k": 1}, "b": {"k": 2}})", "c.json")["b"]["k"], 2);
  EXPECT_NE(input_error([] { parse_json("{", "c.json"); }).find("c.json: not valid JSON"),
            std::string::npos);
  // In words, without the library's own tag ("[json.exception.parse_error.101]").
  EXPECT_EQ(input_error([] { parse_json("{\"a\": 1e400}", "c.json"); }).find("json.exception"),
            std::string::npos);
  EXPECT_EQ(input_error([] { parse_json("{\"a\":", "c.json"); }).find("json.exception"),
            std::string::npos);
}

TEST(JsonRead, FieldsNameTheirFileAndPath) {
  const nlohmann::json j = parse_json(R"({"a": {"b": [1, "x", 3e300, 4294967296]}})", "r.json");
  const JsonField f(j, "r.json");
  EXPECT_EQ(f["a"]["b"][0].integer(0, 10), 1);
  EXPECT_EQ(input_error([&] { f["a"]["c"]; }), "r.json: a: missing field \"c\"");
  EXPECT_EQ(input_error([&] { f["a"]["b"][1].number(); }), "r.json: a.b[1] must be a number");
  EXPECT_NE(input_error([&] { f["a"]["b"][7]; }).find("element 7 is missing"), std::string::npos);
  EXPECT_NE(input_error([&] { f["a"]["b"][2].float_number(); }).find("too large"),
            std::string::npos);
  EXPECT_NE(
      input_error([&] { f["a"]["b"][3].integer(0, INT32_MAX); }).find("r.json: a.b[3] must be in"),
      std::string::npos);
  EXPECT_NE(input_error([&] { f["a"].size(); }).find("must be a JSON array"), std::string::npos);
}

TEST(CheckedMath, OverflowIsBadInput) {
  EXPECT_EQ(checked_mul(int64_t{1} << 31, int64_t{1} << 31, "x"), int64_t{1} << 62);
  EXPECT_NE(input_error([] {
              checked_mul(int64_t{1} << 62, 4, "model.d_model");
            }).find("model.d_model is too large"),
            std::string::npos);
  EXPECT_NE(input_error([] { checked_add(INT64_MAX, 1, "n"); }).find("too large"),
            std::string::npos);
  EXPECT_NE(input_error([] {
              checked_product({1 << 20, 1 << 20, 1 << 20, 1 << 20}, "p");
            }).find("p is"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm
