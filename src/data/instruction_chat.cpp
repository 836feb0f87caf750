// Instruction entries in a model's own chat template; see instruction_chat.h.
#include "data/instruction_chat.h"

#include <algorithm>

#include "tokenizer/hf_json_tokenizer.h"
#include "util/error.h"

namespace tinylm {

namespace {

nlohmann::ordered_json chat_turn(const char* role, const std::string& content) {
  return {{"role", role}, {"content", content}};
}

std::string render_turns(const ChatFormat& chat, nlohmann::ordered_json messages,
                         bool add_generation_prompt) {
  jinja::ChatRequest request;
  request.messages = std::move(messages);
  request.add_generation_prompt = add_generation_prompt;
  return chat.templates->render(request);
}

// The end of the first end-of-turn text at or after `from`; npos when there is none.
size_t end_of_turn_after(const std::string& text, size_t from, const ChatFormat& chat) {
  size_t best = std::string::npos, best_end = std::string::npos;
  for (const std::string& marker : chat.end_of_turn) {
    const size_t at = text.find(marker, from);
    if (at < best) best = at, best_end = at + marker.size();
  }
  return best_end;
}

}  // namespace

std::vector<std::string> chat_end_of_turn_texts(const nlohmann::json& source,
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

std::optional<ChatFormat> chat_format_of(const Tokenizer& tokenizer) {
  const auto* hf = dynamic_cast<const HfJsonTokenizer*>(&tokenizer);
  if (!hf || !hf->config().is_object() || !hf->config().contains("chat_template"))
    return std::nullopt;
  ChatFormat chat;
  chat.templates = std::make_shared<const jinja::ChatTemplates>(
      jinja::ChatTemplates::from_config_text(hf->config().dump(), "tokenizer_config.json"));
  chat.source = hf->config()["chat_template"];
  chat.end_of_turn = chat_end_of_turn_texts(chat.source, chat.templates->special_tokens());
  return chat;
}

InstructionFormat InstructionFormat::of(const Tokenizer& tokenizer) {
  return {chat_format_of(tokenizer)};
}

std::string InstructionFormat::prompt(const InstructionEntry& entry) const {
  return chat ? chat_prompt(*chat, entry) : alpaca_prompt(entry) + kAlpacaResponseHeader;
}

std::string instruction_user_message(const InstructionEntry& entry) {
  return entry.input.empty() ? entry.instruction : entry.instruction + "\n\n" + entry.input;
}

std::string chat_prompt(const ChatFormat& chat, const InstructionEntry& entry) {
  nlohmann::ordered_json messages = {chat_turn("user", instruction_user_message(entry))};
  return render_turns(chat, std::move(messages), true);
}

std::string chat_text(const ChatFormat& chat, const InstructionEntry& entry) {
  const std::string prompt = chat_prompt(chat, entry);
  nlohmann::ordered_json messages = {chat_turn("user", instruction_user_message(entry)),
                                     chat_turn("assistant", entry.output)};
  std::string text = render_turns(chat, std::move(messages), false);
  require(text.compare(0, prompt.size(), prompt) == 0,
          "the chat template's conversation does not start with its prompt (the user's turn "
          "with add_generation_prompt): its answers cannot be trained on");
  // The turn ends at the first end-of-turn text after the output (the template may trim
  // it: then after the prompt).
  const size_t output = text.find(entry.output, prompt.size());
  const size_t from = output == std::string::npos ? prompt.size() : output + entry.output.size();
  const size_t end = end_of_turn_after(text, from, chat);
  if (end != std::string::npos) text.resize(end);
  return text;
}

EncodedInstruction encode_instruction(const Tokenizer& tokenizer, const InstructionEntry& entry,
                                      const InstructionFormat& format) {
  if (!format.chat) return encode_instruction(tokenizer, entry);
  const ChatFormat& chat = *format.chat;
  const std::string text = chat_text(chat, entry);
  EncodedInstruction e;
  e.ids = tokenizer.encode(text);
  e.prompt_length = static_cast<int64_t>(tokenizer.encode(chat_prompt(chat, entry)).size());
  // A template with no end-of-turn text after the answer gets the collate's end-of-text.
  e.ends_turn = std::any_of(chat.end_of_turn.begin(), chat.end_of_turn.end(),
                            [&](const std::string& m) { return text.ends_with(m); });
  return e;
}

}  // namespace tinylm
