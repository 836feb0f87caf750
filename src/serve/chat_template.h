// How chat messages become one prompt, and the texts that end an answer.
//   alpaca (instruct fine-tuning runs: the template they were trained on,
//           data/instruction_data.h):
//     system content, or the Alpaca preamble when there is no system message
//     + for each user message      "\n\n### Instruction:\n" + content
//     + for each assistant message "\n\n### Response:\n" + content
//     + "\n\n### Response:\n"                       stops: "\n\n### Instruction:"
//     (one user message gives exactly the prompt `tinylm respond` feeds)
//   plain (every other model, docs/serve.md):
//     system content + "\n\n" (when there is one)
//     + for each message "User: " / "Assistant: " + content + "\n"
//     + "Assistant:"                                stops: "\nUser:"
// Both also end at <|endoftext|> when the vocabulary has it (the engine's stop_at_eot).
#pragma once
#include <string>
#include <vector>

namespace tinylm::serve {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct ChatTemplate {
  std::string name;  // "alpaca" or "plain"
  std::string render(const std::vector<ChatMessage>& messages) const;
  std::vector<std::string> stops() const;
};

ChatTemplate alpaca_template();
ChatTemplate plain_template();

}  // namespace tinylm::serve
