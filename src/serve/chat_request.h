// The conversation of a chat request (POST /v1/chat/completions, POST /apply-template),
// read and checked as OpenAI's API sends it and handed to the template as transformers'
// apply_chat_template receives it:
//   messages              system (or developer, read as system), user, assistant, tool;
//                         content a string or a list of text parts (joined); an assistant
//                         message with tool_calls may have no content (null then)
//   messages[i].tool_calls  (assistant) [{id, type: "function", function: {name,
//                         arguments}}]: arguments, a JSON string in OpenAI's API, parsed
//                         into its value as llama.cpp's server does (templates such as
//                         Llama 3.1's print it with tojson); kept as the string when it is
//                         not JSON; an object is taken as it is
//   messages[i].tool_call_id  (tool) the call a tool message answers
//   tools                 [{type: "function", function: {name, description, parameters}}],
//                         passed as given (key order kept)
//   chat_template_kwargs  llama.cpp's extra template variables ({"enable_thinking":
//                         false}); not messages, tools, documents or add_generation_prompt
// Anything else of the wrong shape is an ApiError 400 naming the field (`param`).
#pragma once
#include <nlohmann/json.hpp>

#include "serve/chat_template.h"

namespace tinylm::serve {

ChatConversation chat_conversation(const nlohmann::ordered_json& body);

}  // namespace tinylm::serve
