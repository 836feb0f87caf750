// Files, JSON from outside and size arithmetic (issue 13): a folder is not read as an
// empty file, unwritable outputs are bad input with the system's reason, a failed append
// is an error (not a dropped line), duplicate JSON keys are refused, every JSON field
// read names its file and path, and size products never overflow silently.
#include "util/files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
