#include "serve/chat_template.h"

#include <algorithm>

#include "data/instruction_data.h"
#include "tokenizer/hf_json_tokenizer.h"

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

std::string render_model(const jinja::ChatTemplates& templates,
                         const std::vector<ChatMessage>& messages) {
  jinja::ChatRequest request;
  for (const ChatMessage& m : messages)
    request.messages.push_back({{"role", m.role}, {"content", m.content}});
  request.add_generation_prompt = true;
  return templates.render(request);
}

// The end-of-turn markers of the chat formats in use, those the template writes, and the
// eos_token: what ends an assistant's turn.
std::vector<std::string> end_of_turn_texts(const nlohmann::json& source,
                                           const nlohmann::ordered_json& special_tokens) {
  const std::string text = source.dump();
  std::vector<std::string> stops;
  for (const char* marker : {"<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>", "</s>"})
    if (text.find(marker) != std::string::npos) stops.push_back(marker);
  const auto eos = special_tokens.find("eos_token");
  if (eos != special_tokens.end() && eos->is_string() && !eos->get<std::string>().empty() &&
      std::find(stops.begin(), stops.end(), eos->get<std::string>()) == stops.end())
    stops.push_back(eos->get<std::string>());
  return stops;
}

}  // namespace

std::string ChatTemplate::render(const std::vector<ChatMessage>& messages) const {
  if (name == "model") return render_model(*templates, messages);
  return name == "alpaca" ? render_alpaca(messages) : render_plain(messages);
}

std::vector<std::string> ChatTemplate::stops() const {
  if (name == "model") return end_of_turn;
  if (name == "alpaca") return {"\n\n### Instruction:"};
  return {"\nUser:"};
}

std::optional<ChatTemplate> model_template(const Tokenizer& tokenizer) {
  const auto* hf = dynamic_cast<const HfJsonTokenizer*>(&tokenizer);
  if (!hf || !hf->config().is_object() || !hf->config().contains("chat_template"))
    return std::nullopt;
  ChatTemplate t;
  t.name = "model";
  t.templates = std::make_shared<const jinja::ChatTemplates>(
      jinja::ChatTemplates::from_config_text(hf->config().dump(), "tokenizer_config.json"));
  t.source = hf->config()["chat_template"];
  t.end_of_turn = end_of_turn_texts(t.source, t.templates->special_tokens());
  return t;
}

ChatTemplate alpaca_template() {
  return {"alpaca"};
}
ChatTemplate plain_template() {
  return {"plain"};
}

}  // namespace tinylm::serve
