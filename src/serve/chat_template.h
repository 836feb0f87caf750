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
//   model (a model whose tokenizer.json came with a chat template in tokenizer_config.json
//          or chat_template.jinja: SmolLM2, Qwen, Llama 3 Instruct ...):
//     the template rendered as transformers renders it (jinja/chat_template_render.h)
//     with add_generation_prompt true, and the conversation's tools, tool calls, tool
//     messages and extra variables          stops: the end-of-turn tokens the
//     template writes (<|im_end|>, <|eot_id|>, <end_of_turn>, ...) and its eos_token
// All also end at the vocabulary's end of text (the engine's stop_at_eot: <|endoftext|>,
// or a tokenizer.json's eos_token). Alpaca and plain render system, user and assistant
// contents only.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jinja/chat_template_render.h"
#include "tokenizer/tokenizer.h"

namespace tinylm::serve {

struct ChatMessage {
  ChatMessage() = default;
  ChatMessage(std::string role, std::string content)
      : role(std::move(role)), content(std::move(content)) {}

  std::string role;  // "system", "user", "assistant" or "tool"
  std::string content;
  // What a model's own template sees besides (chat completions with tools; the Alpaca
  // and plain formats leave tool calls and tool messages out):
  nlohmann::ordered_json tool_calls;  // assistant: [{id, type, function: {name, arguments}}],
                                      // arguments an object (parsed) or a string; null: none
  std::string tool_call_id;           // tool: the call answered ("": not given)
};

// A conversation as a template sees it: the messages, the tools offered (transformers'
// `tools`, the list as given; null: none) and extra variables (llama.cpp's
// chat_template_kwargs: enable_thinking ...). Only a model's own template reads tools and
// kwargs.
struct ChatConversation {
  std::vector<ChatMessage> messages;
  nlohmann::ordered_json tools;
  nlohmann::ordered_json kwargs = nlohmann::ordered_json::object();
};

struct ChatTemplate {
  std::string name;  // "alpaca", "plain" or "model"
  // "model": the templates, their text as tokenizer_config.json holds it (a string, or
  // the named list), and the end-of-turn texts that stop an answer.
  std::shared_ptr<const jinja::ChatTemplates> templates;
  nlohmann::json source;
  std::vector<std::string> end_of_turn;

  // InputError (a jinja::TemplateError) when the model's template refuses the
  // conversation (raise_exception) or fails to render.
  std::string render_conversation(const ChatConversation& conversation) const;
  std::string render(const std::vector<ChatMessage>& messages) const {
    return render_conversation({messages, nullptr, nlohmann::ordered_json::object()});
  }
  std::vector<std::string> stops() const;
};

// The model's own template when its tokenizer is a tokenizer.json one with a chat
// template; nullopt otherwise. InputError for a template tinylm cannot render.
std::optional<ChatTemplate> model_template(const Tokenizer& tokenizer);

ChatTemplate alpaca_template();
ChatTemplate plain_template();

}  // namespace tinylm::serve
