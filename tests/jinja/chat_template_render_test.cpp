// Reading a model's chat templates (tokenizer_config.json, chat_template.jinja) and the
// choice apply_chat_template makes among several.
#include "jinja/chat_template_render.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/input_error.h"
#include "jinja/error.h"
#include "util/files.h"

namespace tinylm::jinja {
namespace {

using Json = nlohmann::ordered_json;

ChatRequest user_says(const std::string& text) {
  ChatRequest r;
  r.messages = Json::array({{{"role", "user"}, {"content", text}}});
  return r;
}

TEST(ChatTemplates, OneTemplateSeesMessagesTokensAndKwargs) {
  const auto t = ChatTemplates::from_config_text(R"({
    "bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": false},
    "eos_token": "</s>", "pad_token": null, "unk_token": "",
    "chat_template": "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}{{ tools is none }}{{ documents is none }}{{ pad_token is defined }}{{ unk_token is defined }}{{ flag }}"
  })",
                                                 "tokenizer_config.json");
  ChatRequest r = user_says("Hi");
  r.add_generation_prompt = true;
  r.kwargs["flag"] = "!";
  EXPECT_EQ(t.render(r), "<s>[user] Hi</s>[assistant]truetruefalsefalse!");
  EXPECT_EQ(t.special_tokens(), Json({{"bos_token", "<s>"}, {"eos_token", "</s>"}}));
  EXPECT_EQ(t.names(), std::vector<std::string>{"default"});
}

TEST(ChatTemplates, NamedTemplatesPickToolUseWhenToolsAreGiven) {
  const auto t = ChatTemplates::from_config_text(R"({"chat_template": [
      {"name": "default", "template": "plain"},
      {"name": "tool_use", "template": "tools: {{ tools|length }}"},
      {"name": "rag", "template": "docs"}]})",
                                                 "tokenizer_config.json");
  ChatRequest r = user_says("x");
  EXPECT_EQ(t.render(r), "plain");
  r.tools = Json::array({{{"type", "function"}}});
  EXPECT_EQ(t.render(r), "tools: 1");
  r.template_name = "rag";
  EXPECT_EQ(t.render(r), "docs");
  r.template_name = "nope";
  EXPECT_NE(testing::input_error([&] { t.render(r); }).find("no chat template named \"nope\""),
            std::string::npos);
  const auto no_default = ChatTemplates::from_config_text(
      R"({"chat_template": [{"name": "a", "template": "A"}]})", "c");
  EXPECT_NE(testing::input_error([&] {
              no_default.render(user_says("x"));
            }).find("none named \"default\""),
            std::string::npos);
}

TEST(ChatTemplates, KeyOrderOfToolsIsKept) {
  const auto t =
      ChatTemplates::from_config_text(R"({"chat_template": "{{ tools[0]|tojson }}"})", "c");
  ChatRequest r = user_says("x");
  r.tools = Json::parse(R"([{"z": 1, "a": {"y": 2, "b": 3}}])");
  EXPECT_EQ(t.render(r), R"({"z": 1, "a": {"y": 2, "b": 3}})");
}

TEST(ChatTemplates, LoadErrorsNameTheFileAndLine) {
  EXPECT_NE(testing::input_error([] {
              ChatTemplates::from_config_text(R"({"eos_token": "x"})", "cfg.json");
            }).find("cfg.json: no chat_template"),
            std::string::npos);
  const std::string bad = testing::input_error([] {
    ChatTemplates::from_config_text(R"({"chat_template": "ok\n{% include 'x' %}"})", "cfg.json");
  });
  EXPECT_NE(bad.find("cfg.json: chat_template: line 2: unsupported tag {% include %}"),
            std::string::npos)
      << bad;
  EXPECT_FALSE(
      testing::input_error([] { ChatTemplates::from_config_text("{", "cfg.json"); }).empty());
}

class ChatTemplateFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("tinylm-chat-" + std::to_string(::getpid())))
               .string();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ChatTemplateFolder, ChatTemplateJinjaWinsOverTheConfig) {
  write_file_atomic(dir_ + "/tokenizer_config.json",
                    R"({"eos_token": "<e>", "chat_template": "from config"})");
  EXPECT_EQ(ChatTemplates::load(dir_).render(user_says("x")), "from config");
  EXPECT_EQ(ChatTemplates::load(dir_ + "/tokenizer_config.json").render(user_says("x")),
            "from config");
  write_file_atomic(dir_ + "/chat_template.jinja", "from file {{ eos_token }}\n");
  EXPECT_EQ(ChatTemplates::load(dir_).render(user_says("x")), "from file <e>");
  write_file_atomic(dir_ + "/chat_template.jinja", "{% for m in messages %}");
  const std::string error = testing::input_error([&] { ChatTemplates::load(dir_); });
  EXPECT_NE(error.find(dir_ + "/chat_template.jinja: line 1: {% for %} is never closed"),
            std::string::npos)
      << error;
}

TEST_F(ChatTemplateFolder, AFolderWithoutATemplateSaysSo) {
  EXPECT_FALSE(testing::input_error([&] { ChatTemplates::load(dir_); }).empty());
  write_file_atomic(dir_ + "/tokenizer_config.json", R"({"eos_token": "<e>"})");
  EXPECT_NE(testing::input_error([&] { ChatTemplates::load(dir_); }).find("no chat_template"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm::jinja
