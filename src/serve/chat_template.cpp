#include "serve/chat_template.h"

#include "data/instruction_data.h"

namespace tinylm::serve {

namespace {

// The system messages, joined by blank lines, take the preamble's place (none: Alpaca's).
std::string render_alpaca(const std::vector<ChatMessage>& messages) {
  std::string system, turns;
  bool has_system = false;
  for (const ChatMessage& m : messages) {
    if (m.role == "system") system += (has_system ? "\n\n" : "") + m.content, has_system = true;
    if (m.role == "user") turns += "\n\n### Instruction:\n" + m.content;
    if (m.role == "assistant") turns += kAlpacaResponseHeader + m.content;
  }
  return (has_system ? system : std::string(kAlpacaPreamble)) + turns + kAlpacaResponseHeader;
}

std::string render_plain(const std::vector<ChatMessage>& messages) {
  std::string system, turns;
  for (const ChatMessage& m : messages) {
    if (m.role == "system") system += m.content + "\n\n";
    if (m.role == "user") turns += "User: " + m.content + "\n";
    if (m.role == "assistant") turns += "Assistant: " + m.content + "\n";
  }
  return system + turns + "Assistant:";
}

}  // namespace

std::string ChatTemplate::render(const std::vector<ChatMessage>& messages) const {
  return name == "alpaca" ? render_alpaca(messages) : render_plain(messages);
}

std::vector<std::string> ChatTemplate::stops() const {
  if (name == "alpaca") return {"\n\n### Instruction:"};
  return {"\nUser:"};
}

ChatTemplate alpaca_template() {
  return {"alpaca"};
}
ChatTemplate plain_template() {
  return {"plain"};
}

}  // namespace tinylm::serve
