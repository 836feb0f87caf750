#include "serve/chat_template.h"

#include <algorithm>

#include "data/instruction_chat.h"
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

// A message as transformers hands it to the template: role, content, then tool_calls and
// tool_call_id when there are.
nlohmann::ordered_json template_message(const ChatMessage& m) {
  nlohmann::ordered_json j = {{"role", m.role}, {"content", m.content}};
  if (!m.tool_calls.is_null()) j["tool_calls"] = m.tool_calls;
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  return j;
}

std::string render_model(const jinja::ChatTemplates& templates, const ChatConversation& chat) {
  jinja::ChatRequest request;
  for (const ChatMessage& m : chat.messages) request.messages.push_back(template_message(m));
  request.tools = chat.tools;
  request.kwargs = chat.kwargs;
  request.add_generation_prompt = true;
  return templates.render(request);
}

}  // namespace

std::string ChatTemplate::render_conversation(const ChatConversation& chat) const {
  if (name == "model") return render_model(*templates, chat);
  return name == "alpaca" ? render_alpaca(chat.messages) : render_plain(chat.messages);
}

std::vector<std::string> ChatTemplate::stops() const {
  if (name == "model") return end_of_turn;
  if (name == "alpaca") return {"\n\n### Instruction:"};
  return {"\nUser:"};
}

std::optional<ChatTemplate> model_template(const Tokenizer& tokenizer) {
  std::optional<ChatFormat> chat = chat_format_of(tokenizer);
  if (!chat) return std::nullopt;
  ChatTemplate t;
  t.name = "model";
  t.templates = std::move(chat->templates);
  t.source = std::move(chat->source);
  t.end_of_turn = std::move(chat->end_of_turn);
  return t;
}

ChatTemplate alpaca_template() {
  return {"alpaca"};
}
ChatTemplate plain_template() {
  return {"plain"};
}

}  // namespace tinylm::serve
