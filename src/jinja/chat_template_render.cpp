#include "jinja/chat_template_render.h"

#include <filesystem>

#include "jinja/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::jinja {
namespace {

// The special tokens transformers.js passes to every chat template, in its order.
const char* const kSpecialTokens[] = {"bos_token", "unk_token",  "sep_token", "pad_token",
                                      "cls_token", "mask_token", "eos_token"};

nlohmann::ordered_json read_special_tokens(const JsonField& config) {
  nlohmann::ordered_json tokens = nlohmann::ordered_json::object();
  for (const char* name : kSpecialTokens) {
    if (!config.has(name) || config[name].is_null()) continue;
    const JsonField token = config[name];
    // An AddedToken written out: {"content": "<s>", "lstrip": false, ...}.
    const std::string text = token.is_object() ? token["content"].string() : token.string();
    if (!text.empty()) tokens[name] = text;  // transformers.js skips empty ones too
  }
  return tokens;
}

}  // namespace

ChatTemplates ChatTemplates::from_config_text(std::string_view config_json,
                                              const std::string& where,
                                              const std::string* jinja_text,
                                              const std::string& jinja_where) {
  const nlohmann::json doc = parse_json(config_json, where);
  const JsonField config(doc, where);
  config.require_object();
  ChatTemplates out;
  out.where_ = where;
  out.special_tokens_ = read_special_tokens(config);
  if (jinja_text) {
    out.templates_.emplace("default", Template(*jinja_text, jinja_where));
    return out;
  }
  if (!config.has("chat_template") || config["chat_template"].is_null())
    throw InputError(where + ": no chat_template (and no chat_template.jinja beside it)");
  const JsonField field = config["chat_template"];
  if (field.is_string()) {
    out.templates_.emplace("default", Template(field.string(), where + ": chat_template"));
    return out;
  }
  out.single_ = false;
  for (size_t i = 0; i < field.size(); ++i) {
    const std::string name = field[i]["name"].string();
    const std::string text = field[i]["template"].string();
    out.templates_.insert_or_assign(name,
                                    Template(text, where + ": chat_template \"" + name + "\""));
  }
  if (out.templates_.empty()) throw InputError(where + ": chat_template is an empty list");
  return out;
}

ChatTemplates ChatTemplates::load(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path folder = fs::is_directory(p) ? p : p.parent_path();
  const fs::path config = fs::is_directory(p) ? p / "tokenizer_config.json" : p;
  const fs::path jinja_file = folder / "chat_template.jinja";
  std::string jinja_text;
  const bool has_jinja = fs::is_regular_file(jinja_file);
  if (has_jinja) jinja_text = read_file(jinja_file.string());
  const std::string config_text =
      fs::exists(config) || !has_jinja ? read_file(config.string()) : "{}";
  return from_config_text(config_text, config.string(), has_jinja ? &jinja_text : nullptr,
                          jinja_file.string());
}

std::vector<std::string> ChatTemplates::names() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : templates_) out.push_back(name);
  return out;
}

const Template& ChatTemplates::pick(const std::string& name, bool with_tools) const {
  if (single_ && name.empty()) return templates_.begin()->second;
  if (!name.empty()) {
    auto it = templates_.find(name);
    if (it != templates_.end()) return it->second;
    if (single_)
      throw InputError(where_ + ": has one chat template, not one named \"" + name + "\"");
    throw InputError(where_ + ": no chat template named \"" + name + "\"");
  }
  if (with_tools && templates_.count("tool_use")) return templates_.at("tool_use");
  if (templates_.count("default")) return templates_.at("default");
  throw InputError(where_ + ": several chat templates and none named \"default\"; name one");
}

std::string ChatTemplates::render(const ChatRequest& request, const RenderOptions& options) const {
  if (!request.messages.is_array()) throw InputError("chat messages must be a JSON array");
  if (!request.kwargs.is_object()) throw InputError("chat template kwargs must be a JSON object");
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  vars["messages"] = request.messages;
  vars["add_generation_prompt"] = request.add_generation_prompt;
  vars["tools"] = request.tools;
  vars["documents"] = request.documents;
  for (const auto& [k, v] : special_tokens_.items()) vars[k] = v;
  for (const auto& [k, v] : request.kwargs.items()) vars[k] = v;
  return pick(request.template_name, !request.tools.is_null()).render(vars, options);
}

}  // namespace tinylm::jinja
