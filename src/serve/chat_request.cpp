// A chat request's conversation, checked; see chat_request.h.
#include "serve/chat_request.h"

#include <string>

#include "serve/api_error.h"
#include "util/error.h"
#include "util/json_read.h"

namespace tinylm::serve {

namespace {

using ojson = nlohmann::ordered_json;

// The value of key, or nullptr when absent or null (OpenAI treats null as absent).
const ojson* chat_field(const ojson& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string content_text(const ojson& content, const std::string& param) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array())
    throw bad_field(param, "'" + param + "' must be a string or a list of text parts");
  std::string text;
  for (const ojson& part : content) {
    if (!part.is_object() || !part.contains("text") || !part["text"].is_string() ||
        part.value("type", "text") != "text")
      throw bad_field(param, "'" + param + "' parts must be {\"type\": \"text\", \"text\": ...}");
    text += part["text"].get<std::string>();
  }
  return text;
}

// {"name": a non-empty string, ...} at param (a tool's or a tool call's function).
const ojson& function_of(const ojson& item, const std::string& param) {
  if (!item.is_object()) throw bad_field(param, "'" + param + "' must be an object");
  const ojson* type = chat_field(item, "type");
  if (type && *type != "function")
    throw bad_field(param + ".type", "'" + param + ".type' must be \"function\"");
  const ojson* function = chat_field(item, "function");
  if (!function || !function->is_object())
    throw bad_field(param + ".function", "'" + param + ".function' must be an object");
  const ojson* name = chat_field(*function, "name");
  if (!name || !name->is_string() || name->get<std::string>().empty())
    throw bad_field(param + ".function.name",
                    "'" + param + ".function.name' must be a non-empty string");
  return *function;
}

// OpenAI's arguments string as its JSON value (checked as every JSON from outside is:
// nesting, duplicate keys); the string itself when it is not JSON.
ojson parsed_arguments(const std::string& text) {
  try {
    (void)parse_json(text, "arguments");
  } catch (const InputError&) {
    return text;
  }
  return ojson::parse(text);
}

ojson tool_calls_of(const ojson& calls, const std::string& param) {
  if (!calls.is_array()) throw bad_field(param, "'" + param + "' must be a list of tool calls");
  ojson out = ojson::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    const std::string at = param + "[" + std::to_string(i) + "]";
    const ojson& function = function_of(calls[i], at);
    const ojson* id = chat_field(calls[i], "id");
    if (id && !id->is_string()) throw bad_field(at + ".id", "'" + at + ".id' must be a string");
    ojson call = calls[i];
    const ojson* arguments = chat_field(function, "arguments");
    if (arguments && arguments->is_string())
      call["function"]["arguments"] = parsed_arguments(arguments->get<std::string>());
    else if (arguments && !arguments->is_object())
      throw bad_field(at + ".function.arguments",
                      "'" + at + ".function.arguments' must be a JSON string or an object");
    out.push_back(std::move(call));
  }
  return out;
}

ChatMessage one_message(const ojson& msg, size_t i) {
  const std::string param = "messages[" + std::to_string(i) + "]";
  if (!msg.is_object() || !msg.contains("role") || !msg["role"].is_string())
    throw bad_field(param, "'" + param + "' must be an object with a 'role'");
  ChatMessage m;
  m.role = msg["role"].get<std::string>();
  if (m.role == "developer") m.role = "system";
  if (m.role != "system" && m.role != "user" && m.role != "assistant" && m.role != "tool")
    throw bad_field(param + ".role",
                    "'" + param + ".role' must be system, developer, user, assistant or tool");
  if (const ojson* calls = chat_field(msg, "tool_calls")) {
    if (m.role != "assistant")
      throw bad_field(param + ".tool_calls",
                      "'" + param + ".tool_calls' is for assistant messages");
    m.tool_calls = tool_calls_of(*calls, param + ".tool_calls");
  }
  if (const ojson* id = chat_field(msg, "tool_call_id")) {
    if (!id->is_string())
      throw bad_field(param + ".tool_call_id", "'" + param + ".tool_call_id' must be a string");
    m.tool_call_id = id->get<std::string>();
  }
  const ojson* content = chat_field(msg, "content");
  if (content)
    m.content = content_text(*content, param + ".content");
  else if (m.tool_calls.is_null())
    throw bad_field(param + ".content", "'" + param + ".content' is required");
  return m;
}

ojson tools_of(const ojson& tools) {
  if (!tools.is_array()) throw bad_field("tools", "'tools' must be a list of tools");
  for (size_t i = 0; i < tools.size(); ++i)
    (void)function_of(tools[i], "tools[" + std::to_string(i) + "]");
  return tools;
}

ojson template_kwargs(const ojson& kwargs) {
  if (!kwargs.is_object())
    throw bad_field("chat_template_kwargs", "'chat_template_kwargs' must be an object");
  for (const char* own : {"messages", "tools", "documents", "add_generation_prompt"})
    if (kwargs.contains(own))
      throw bad_field("chat_template_kwargs", std::string("'chat_template_kwargs' may not set '") +
                                                  own + "' (the request's own field)");
  return kwargs;
}

}  // namespace

ChatConversation chat_conversation(const ojson& body) {
  if (!body.is_object()) throw bad_field("messages", "the body must be a JSON object");
  const ojson* m = chat_field(body, "messages");
  if (!m || !m->is_array() || m->empty())
    throw bad_field("messages", "'messages' must be a non-empty list of messages");
  ChatConversation chat;
  for (size_t i = 0; i < m->size(); ++i) chat.messages.push_back(one_message((*m)[i], i));
  if (const ojson* tools = chat_field(body, "tools")) chat.tools = tools_of(*tools);
  if (const ojson* kwargs = chat_field(body, "chat_template_kwargs"))
    chat.kwargs = template_kwargs(*kwargs);
  return chat;
}

}  // namespace tinylm::serve
