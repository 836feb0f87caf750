// Instruction entries in a model's own chat template: how `tinylm finetune --task instruct`
// formats an entry for a model whose tokenizer.json came with a chat template (Qwen3,
// Llama 3 Instruct, SmolLM2 ...), and the prompt `tinylm respond` and `tinylm serve` give
// the fine-tuned model, which is the same text.
//
//   user message       instruction, + "\n\n" + input when the entry has one
//   assistant message  output
//   prompt  = template([user], add_generation_prompt=true)
//   text    = template([user, assistant]) up to and including the first end-of-turn text
//             after the output (<|im_end|>, <|eot_id|> ...: chat_end_of_turn_texts); what
//             the template writes after it (a newline) is not trained on
//   ids = encode(text), prompt_length = the number of ids of encode(prompt): the same
//   rule as Alpaca's (instruction_data.h), so mask_prompt masks the whole prompt, the
//   assistant's header included. The ids end with the end-of-turn token (ends_turn): the
//   collate appends no end-of-text of its own (instruction_collate.h).
// Every other tokenizer (GPT-2's, a char or word one, a tokenizer.json without a template)
// keeps Alpaca's prompt (instruction_data.h).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "data/instruction_data.h"
#include "jinja/chat_template_render.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

// A tokenizer's chat template: a tokenizer.json tokenizer whose tokenizer_config.json (or
// chat_template.jinja) had one.
struct ChatFormat {
  std::shared_ptr<const jinja::ChatTemplates> templates;
  nlohmann::json source;                 // chat_template as tokenizer_config.json holds it
  std::vector<std::string> end_of_turn;  // the texts that end an assistant's turn
};

// nullopt when the tokenizer has no chat template. InputError for a template tinylm cannot
// render.
std::optional<ChatFormat> chat_format_of(const Tokenizer& tokenizer);

// The end-of-turn markers of the chat formats in use that the template writes
// (<|im_end|>, <|eot_id|>, <|end|>, <end_of_turn>, </s>), then the eos_token.
std::vector<std::string> chat_end_of_turn_texts(const nlohmann::json& source,
                                                const nlohmann::ordered_json& special_tokens);

// How instruction entries become text: Alpaca's (chat empty) or the model's template.
struct InstructionFormat {
  std::optional<ChatFormat> chat;

  static InstructionFormat of(const Tokenizer& tokenizer);  // chat_format_of
  std::string name() const { return chat ? "the model's chat template" : "Alpaca"; }
  // What the model is given to answer: alpaca_prompt + kAlpacaResponseHeader, or the
  // template's prompt (above).
  std::string prompt(const InstructionEntry& entry) const;
};

// The user message of an entry (above).
std::string instruction_user_message(const InstructionEntry& entry);
// The template's prompt and training text of an entry (above). InputError (naming the
// template's message) when the template refuses the conversation, or when the
// conversation does not start with the prompt.
std::string chat_prompt(const ChatFormat& chat, const InstructionEntry& entry);
std::string chat_text(const ChatFormat& chat, const InstructionEntry& entry);

// encode_instruction (Alpaca) or the chat template's ids (above).
EncodedInstruction encode_instruction(const Tokenizer& tokenizer, const InstructionEntry& entry,
                                      const InstructionFormat& format);

}  // namespace tinylm
