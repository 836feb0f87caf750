// Tool calls read out of an answer (serve/tool_call_parse.h): Qwen's <tool_call> blocks
// and Llama 3.1's JSON answer become OpenAI's calls; anything else stays text.
#include "serve/tool_call_parse.h"

#include <gtest/gtest.h>

namespace tinylm::serve {
namespace {

using ojson = nlohmann::ordered_json;

ojson call(const char* name, const char* arguments) {
  return {{"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

TEST(ToolCallParse, QwenBlocksAndTheTextAround) {
  const auto a = parse_tool_calls(
      "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"unit\": "
      "\"celsius\", \"city\": \"Zürich\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"search\", "
      "\"arguments\": {}}\n</tool_call>");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->content, "Let me look.");
  ASSERT_EQ(a->tool_calls.size(), 2u);
  EXPECT_EQ(a->tool_calls[0], call("get_weather", R"({"unit":"celsius","city":"Zürich"})"));
  EXPECT_EQ(a->tool_calls[1], call("search", "{}"));
}

TEST(ToolCallParse, LlamaJsonAnswer) {
  const auto a = parse_tool_calls(" {\"name\": \"f\", \"parameters\": {\"b\": 1, \"a\": [2]}}\n");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->content, "");
  ASSERT_EQ(a->tool_calls.size(), 1u);
  EXPECT_EQ(a->tool_calls[0], call("f", R"({"b":1,"a":[2]})"));
}

TEST(ToolCallParse, AnythingElseStaysText) {
  for (const char* text :
       {"It is sunny.", "", "{\"name\": \"f\", \"parameters\": \"x\"}", "{\"answer\": 42}",
        "{not json", "<tool_call>\n{\"name\": \"f\"\n</tool_call>", "<tool_call>{\"name\": \"f\"}",
        "<tool_call>[1]</tool_call>", "<tool_call>{\"name\": \"\"}</tool_call>",
        "<tool_call>{\"name\": \"f\", \"name\": \"g\"}</tool_call>", "Use {\"name\": \"f\"}"})
    EXPECT_FALSE(parse_tool_calls(text)) << text;
}

// The message of an answer: text as it is without tools offered or without calls; with
// calls, the content around them (null when none) and the calls with their ids.
TEST(ToolCallParse, AssistantMessage) {
  int n = 0;
  const auto id = [&n] { return "call_" + std::to_string(n++); };
  const std::string text = "<tool_call>{\"name\": \"f\", \"arguments\": {\"x\": 1}}</tool_call>";
  EXPECT_EQ(assistant_message(text, false, id),
            nlohmann::json({{"role", "assistant"}, {"content", text}}));
  EXPECT_EQ(assistant_message("Hi.", true, id),
            nlohmann::json({{"role", "assistant"}, {"content", "Hi."}}));
  const nlohmann::json m = assistant_message(text, true, id);
  EXPECT_TRUE(m["content"].is_null());
  ASSERT_EQ(m["tool_calls"].size(), 1u);
  EXPECT_EQ(m["tool_calls"][0]["id"], "call_0");
  EXPECT_EQ(m["tool_calls"][0]["type"], "function");
  EXPECT_EQ(m["tool_calls"][0]["function"]["name"], "f");
  EXPECT_EQ(m["tool_calls"][0]["function"]["arguments"], "{\"x\":1}");
  EXPECT_EQ(assistant_message("Sure. " + text, true, id)["content"], "Sure.");
}

}  // namespace
}  // namespace tinylm::serve
