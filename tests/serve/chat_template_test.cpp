// Chat messages to one prompt: one user message in the Alpaca template is exactly what
// `tinylm respond` feeds an instruct run; turns, system messages and the plain template.
#include "serve/chat_template.h"

#include <gtest/gtest.h>

#include "data/instruction_data.h"

namespace tinylm::serve {
namespace {

TEST(ChatTemplate, OneUserMessageIsTheAlpacaPromptRespondFeeds) {
  InstructionEntry entry;
  entry.instruction = "Name a colour.";
  EXPECT_EQ(alpaca_template().render({{"user", "Name a colour."}}),
            alpaca_prompt(entry) + kAlpacaResponseHeader);
}

TEST(ChatTemplate, TurnsAndSystemMessages) {
  const std::vector<ChatMessage> chat = {
      {"system", "Be brief."}, {"user", "Hi"}, {"assistant", "Hello."}, {"user", "Bye"}};
  EXPECT_EQ(alpaca_template().render(chat),
            "Be brief.\n\n### Instruction:\nHi\n\n### Response:\nHello.\n\n### Instruction:\nBye"
            "\n\n### Response:\n");
  EXPECT_EQ(plain_template().render(chat),
            "Be brief.\n\nUser: Hi\nAssistant: Hello.\nUser: Bye\nAssistant:");
  // several system messages: all of them, in order, as the plain template keeps them
  const std::vector<ChatMessage> two = {
      {"system", "Be brief."}, {"system", "Be kind."}, {"user", "Hi"}};
  EXPECT_EQ(alpaca_template().render(two),
            "Be brief.\n\nBe kind.\n\n### Instruction:\nHi\n\n### Response:\n");
  EXPECT_EQ(alpaca_template().stops(), std::vector<std::string>{"\n\n### Instruction:"});
  EXPECT_EQ(plain_template().stops(), std::vector<std::string>{"\nUser:"});
}

}  // namespace
}  // namespace tinylm::serve
