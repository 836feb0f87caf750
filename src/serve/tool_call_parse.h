// Tool calls read out of a model's answer to a chat request that offered tools, in the two
// formats chat templates teach:
//   Hermes / Qwen (Qwen2.5, Qwen3, SmolLM3 ...): one or more
//     <tool_call>
//     {"name": "get_weather", "arguments": {"city": "Paris"}}
//     </tool_call>
//     the text outside the blocks is the content;
//   Llama 3.1 / 3.2's JSON answer: the whole answer is
//     {"name": "get_weather", "parameters": {"city": "Paris"}}   ("arguments" also read)
// Each call is OpenAI's {"type": "function", "function": {"name", "arguments"}} with
// arguments as JSON text (the object printed in its order); the caller adds the id.
// nullopt when the answer holds no call, or when a block is not such JSON (the answer is
// then left as text, whole).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tinylm::serve {

struct ToolCallAnswer {
  std::string content;  // the text outside the calls, trimmed ("" : none)
  nlohmann::ordered_json tool_calls = nlohmann::ordered_json::array();
};

std::optional<ToolCallAnswer> parse_tool_calls(const std::string& text);

// The assistant's message of a chat answer given at once: {"role": "assistant",
// "content": text}; when tools were offered and the text holds calls, the content around
// them (null when none) and "tool_calls", each with an id from new_id().
nlohmann::json assistant_message(const std::string& text, bool tools_offered,
                                 const std::function<std::string()>& new_id);

}  // namespace tinylm::serve
