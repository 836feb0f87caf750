// Tool calls in a model's answer; see tool_call_parse.h.
#include "serve/tool_call_parse.h"

#include "util/error.h"
#include "util/json_read.h"

namespace tinylm::serve {

namespace {

using ojson = nlohmann::ordered_json;

std::string trimmed_text(const std::string& s) {
  const char* space = " \t\r\n";
  const size_t first = s.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

// text as a JSON object (checked as JSON from outside is), or nullopt.
std::optional<ojson> json_object(const std::string& text) {
  try {
    (void)parse_json(text, "tool call");
  } catch (const InputError&) {
    return std::nullopt;
  }
  ojson j = ojson::parse(text);
  if (!j.is_object()) return std::nullopt;
  return j;
}

// {"name": text, "arguments" | "parameters": object} as OpenAI's call, or nullopt.
std::optional<ojson> openai_call(const ojson& j) {
  const auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty())
    return std::nullopt;
  ojson arguments = ojson::object();
  for (const char* key : {"arguments", "parameters"})
    if (j.contains(key)) arguments = j[key];
  if (!arguments.is_object()) return std::nullopt;
  return ojson{{"type", "function"},
               {"function", {{"name", *name}, {"arguments", arguments.dump()}}}};
}

std::optional<ToolCallAnswer> tagged_calls(const std::string& text) {
  static const std::string open = "<tool_call>", close = "</tool_call>";
  ToolCallAnswer answer;
  std::string rest;
  size_t at = 0;
  for (size_t start; (start = text.find(open, at)) != std::string::npos;) {
    const size_t end = text.find(close, start + open.size());
    if (end == std::string::npos) return std::nullopt;
    const std::optional<ojson> j =
        json_object(trimmed_text(text.substr(start + open.size(), end - start - open.size())));
    const std::optional<ojson> call = j ? openai_call(*j) : std::nullopt;
    if (!call) return std::nullopt;
    answer.tool_calls.push_back(*call);
    rest += text.substr(at, start - at);
    at = end + close.size();
  }
  if (answer.tool_calls.empty()) return std::nullopt;
  answer.content = trimmed_text(rest + text.substr(at));
  return answer;
}

}  // namespace

std::optional<ToolCallAnswer> parse_tool_calls(const std::string& text) {
  if (text.find("<tool_call>") != std::string::npos) return tagged_calls(text);
  const std::string whole = trimmed_text(text);
  if (whole.empty() || whole.front() != '{') return std::nullopt;
  const std::optional<ojson> j = json_object(whole);
  const std::optional<ojson> call = j ? openai_call(*j) : std::nullopt;
  if (!call) return std::nullopt;
  ToolCallAnswer answer;
  answer.tool_calls.push_back(*call);
  return answer;
}

nlohmann::json assistant_message(const std::string& text, bool tools_offered,
                                 const std::function<std::string()>& new_id) {
  nlohmann::json message = {{"role", "assistant"}, {"content", text}};
  const std::optional<ToolCallAnswer> calls = tools_offered ? parse_tool_calls(text) : std::nullopt;
  if (!calls) return message;
  message["content"] = calls->content.empty() ? nlohmann::json() : nlohmann::json(calls->content);
  message["tool_calls"] = nlohmann::json::array();
  for (const ojson& call : calls->tool_calls) {
    nlohmann::json one(call);
    one["id"] = new_id();
    message["tool_calls"].push_back(std::move(one));
  }
  return message;
}

}  // namespace tinylm::serve
