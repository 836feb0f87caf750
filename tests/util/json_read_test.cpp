// The checked JSON reader against hostile documents: nesting
// past kMaxJsonDepth is refused before anything recurses over it, and a key given twice
// is refused naming the file and the line, in whole documents and in JSONL lines.
#include "util/json_read.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/input_error.h"

namespace tinylm {
namespace {

using testing::input_error;

std::string nested_arrays(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// {"a": {"a": ... {"a": 1} ... }}
std::string nested_objects(size_t depth) {
  std::string s;
  for (size_t i = 0; i < depth; ++i) s += "{\"a\": ";
  s += "1";
  s.append(depth, '}');
  return s;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(JsonDepth, AHostileDepthIsRefusedNotACrash) {
  // 150,000 levels in 300 KB: a small document that would overflow a recursive reader.
  const std::string message = input_error([] { parse_json(nested_arrays(150'000), "c.json"); });
  EXPECT_TRUE(has(message, "c.json: JSON nested deeper than 512 levels")) << message;
  const std::string objects = input_error([] { parse_json(nested_objects(150'000), "c.json"); });
  EXPECT_TRUE(has(objects, "nested deeper than 512 levels")) << objects;
}

TEST(JsonDepth, TheBoundIsExact) {
  EXPECT_NO_THROW(parse_json(nested_arrays(kMaxJsonDepth), "c.json"));
  EXPECT_NO_THROW(parse_json(nested_objects(kMaxJsonDepth), "c.json"));
  EXPECT_NE(input_error([] { parse_json(nested_arrays(kMaxJsonDepth + 1), "c.json"); }), "");
  EXPECT_NE(input_error([] { parse_json(nested_objects(kMaxJsonDepth + 1), "c.json"); }), "");
  // Siblings do not add up: many shallow arrays side by side are fine.
  std::string wide = "[";
  for (int i = 0; i < 2000; ++i) wide += std::string(i ? "," : "") + "[[1]]";
  EXPECT_EQ(parse_json(wide + "]", "c.json").size(), 2000u);
}

TEST(JsonDepth, BracketsInStringsDoNotCount) {
  const std::string text = "{\"k\": \"" + std::string(5000, '[') + "\\\"{{\"}";
  EXPECT_EQ(parse_json(text, "c.json")["k"].get<std::string>().size(), 5003u);
}

TEST(JsonDepth, TheMessageNamesTheLine) {
  const std::string text = "{\"a\": 1,\n \"b\": " + nested_arrays(600) + "}";
  EXPECT_EQ(input_error([&] { parse_json(text, "c.json"); }),
            "c.json: JSON nested deeper than 512 levels on line 2");
  EXPECT_EQ(input_error([] { parse_json_line(nested_arrays(600), "d.jsonl", 7); }),
            "d.jsonl:7: JSON nested deeper than 512 levels");
}

TEST(JsonDuplicateKeys, TheMessageNamesTheFileAndLine) {
  EXPECT_EQ(input_error([] { parse_json("{\n  \"a\": 1,\n  \"a\": 2\n}", "c.json"); }),
            "c.json: duplicate key \"a\" on line 3");
  // Keys are compared decoded: "\u0061" is "a". Strings that are not keys, and keys
  // holding quotes and colons, do not confuse the line.
  EXPECT_EQ(input_error([] {
              parse_json("{\"a\": \"b:\",\n \"x\\\":\": [\"y\", \"y\"],\n \"\\u0061\": 2}",
                         "c.json");
            }),
            "c.json: duplicate key \"a\" on line 3");
  EXPECT_EQ(input_error([] {
              parse_json("[{\"k\": 1},\n {\"k\": {\"k\": 2}},\n {\"j\": 1, \"k\": 1,\n \"j\": 2}]",
                         "c.json");
            }),
            "c.json: duplicate key \"j\" on line 4");
}

TEST(JsonDuplicateKeys, OneJsonlLine) {
  EXPECT_EQ(input_error([] {
              parse_json_line(R"({"text": "hi", "label": "a", "label": "b"})", "d.jsonl", 12);
            }),
            "d.jsonl:12: duplicate key \"label\"");
  EXPECT_TRUE(has(input_error([] { parse_json_line("{\"a\": ", "d.jsonl", 3); }),
                  "d.jsonl:3: not valid JSON"));
  EXPECT_EQ(parse_json_line(R"({"text": "hi", "label": 1})", "d.jsonl", 1)["label"], 1);
}

// The parse is linear in the text: nlohmann's parser with a callback (used before)
// scanned the enclosing container at the end of every object, 2 * 10^10 steps here. No
// time is asserted; the test would not finish.
TEST(JsonRead, ManyObjectsInOneContainer) {
  std::string array = "[", object = "{";
  for (int i = 0; i < 200'000; ++i) {
    array += std::string(i ? "," : "") + "{\"a\": [1]}";
    object += std::string(i ? "," : "") + "\"k" + std::to_string(i) + "\": {\"a\": 1}";
  }
  EXPECT_EQ(parse_json(array + "]", "c.json").size(), 200'000u);
  EXPECT_EQ(parse_json(object + "}", "c.json")["k199999"]["a"], 1);
}

TEST(JsonRead, RulesSeeEveryKeyWithItsDepth) {
  std::vector<std::string> seen;
  JsonRules rules;
  rules.max_depth = 2;
  rules.on_key = [&](const std::string& key, int depth) {
    seen.push_back(key + "@" + std::to_string(depth));
  };
  parse_json(R"({"a": {"b": 1}, "c": [2], "d": 3})", "c.json", rules);
  EXPECT_EQ(seen, (std::vector<std::string>{"a@1", "b@2", "c@1", "d@1"}));
  EXPECT_EQ(input_error([&] { parse_json("[[[1]]]", "c.json", rules); }),
            "c.json: JSON nested deeper than 2 levels on line 1");
}

}  // namespace
}  // namespace tinylm
