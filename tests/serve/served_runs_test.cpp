// Fine-tuned runs served over HTTP as `tinylm serve` loads them: an instruct run trained
// with LoRA (its adapters folded in on load, as serve.cpp does) chats in its Alpaca
// template, and at temperature 0 answers what `tinylm respond` answers on the same model;
// a Q8_0 GGUF file completes as generate does with its 8-bit weights.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "export/gguf_export.h"
#include "finetune/finetune_test_util.h"
#include "finetune/instruct_trainer.h"
#include "finetune/respond.h"
#include "generate/generate.h"
#include "serve/server_harness.h"

namespace tinylm::serve {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string trimmed(std::string s) {
  const size_t begin = s.find_first_not_of(" \n\t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \n\t\r") - begin + 1);
}

TEST(ServedRuns, AnInstructLoraRunAnswersAsRespondDoes) {
  const std::string dir = tinylm::testing::temp_path("serve-instruct-lora");
  json settings = tinylm::testing::tiny_instruct_settings();
  settings["lora"] = {{"r", 4}, {"alpha", 8}};
  FinetuneConfig c = FinetuneConfig::from_json(settings, "instruct");
  c.base = "gpt2-124m";
  c.data = tinylm::testing::write_instruction_file(dir + "-data.json", 12);
  c.finetune.epochs = 1;
  ASSERT_EQ(finetune::finetune_instruct(c, {dir, false, true, -1}), 0);

  OpenedModel loaded = open_model(dir);
  ASSERT_TRUE(loaded.lora) << "the run trained LoRA adapters";
  loaded.merge_adapters();  // as serve.cpp does on load
  InstructionEntry entry;
  entry.instruction = "Repeat the word red.";
  std::string expected = finetune::respond(*loaded.lm, *loaded.tokenizer, entry, 12);
  if (const size_t stop = expected.find("\n\n### Instruction:"); stop != std::string::npos)
    expected = trimmed(expected.substr(0, stop));  // the template's stop text ends a chat turn

  ASSERT_FALSE(expected.empty()) << "the run answers something";
  testing::TestServer server({}, {}, std::move(loaded));
  auto client = server.client();
  const json body = {{"messages", {{{"role", "user"}, {"content", entry.instruction}}}},
                     {"max_tokens", 12},
                     {"temperature", 0}};
  const auto r = client.Post("/v1/chat/completions", body.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json answer = json::parse(r->body);
  EXPECT_EQ(trimmed(answer["choices"][0]["message"]["content"].get<std::string>()), expected);
  fs::remove_all(dir);
  fs::remove(dir + "-data.json");
}

// A Q8_0 GGUF file is served at its own precision: a greedy completion over HTTP is what
// generate gives on that file with its 8-bit decode weights (and not the float32 text:
// checked on a prompt where the two part).
TEST(ServedRuns, AQ8GgufFileCompletesAsGenerateDoes) {
  const std::string path = tinylm::testing::temp_path("serve-q8") + ".gguf";
  {
    OpenedModel tiny = open_model(testing::kTinyGpt2);
    save_gguf(path, export_gguf(tiny, GgmlType::kQ8_0, "tiny"));
  }
  OpenedModel file = open_model(path);
  GPT& model = file.language_model("test");
  const std::vector<int32_t> prompt = {15496, 11, 314, 716, 257, 7009, 3303, 2746, 11};
  GenerateOptions greedy;
  greedy.max_new_tokens = 16;
  greedy.sampling.greedy = true;
  Rng rng(1);
  DecodeContext q8_decoder(model, decode::DecodeWeights::kQ8_0);
  const std::vector<int32_t> q8 = generate(q8_decoder, prompt, greedy, rng);
  Rng rng32(1);
  EXPECT_NE(generate(model, prompt, greedy, rng32), q8) << "float32 and Q8_0 part here";

  testing::TestServer server({}, {}, path);
  auto client = server.client();
  const json body = {{"prompt", prompt}, {"max_tokens", 16}, {"temperature", 0}};
  const auto r = client.Post("/v1/completions", body.dump(), "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["choices"][0]["text"].get<std::string>(),
            file.tokenizer->decode(q8));
  fs::remove(path);
}

}  // namespace
}  // namespace tinylm::serve
