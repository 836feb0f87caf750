// A model's chat template, read from its folder and rendered as transformers.js'
// apply_chat_template renders it (with @huggingface/jinja):
//
//   auto templates = jinja::ChatTemplates::load("models/qwen3");   // the folder, or its
//                                                                  // tokenizer_config.json
//   jinja::ChatRequest req;
//   req.messages = nlohmann::ordered_json::parse(R"([{"role": "user", "content": "Hi"}])");
//   req.add_generation_prompt = true;
//   req.kwargs["enable_thinking"] = false;
//   std::string prompt = templates.render(req);
//
// Where the template comes from, as transformers reads a folder:
//   - chat_template.jinja beside tokenizer_config.json (what newer transformers writes);
//   - else tokenizer_config.json's "chat_template": a string, or a list of
//     {"name": ..., "template": ...} from which a render takes the one named in the
//     request, else "tool_use" when tools are given and the list has it, else "default".
// What a template sees: messages, add_generation_prompt, tools and documents (none when
// not given), the special tokens of tokenizer_config.json (bos_token, eos_token,
// unk_token, sep_token, pad_token, cls_token, mask_token; a string or {"content": ...}),
// then the request's kwargs (enable_thinking, date_string, ...), which win over a token
// of the same name.
//
// Key order matters (tojson prints tools and arguments in their order): pass JSON parsed
// as nlohmann::ordered_json from the request's text, not a std::map-backed json.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "jinja/template.h"

namespace tinylm::jinja {

struct ChatRequest {
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  nlohmann::ordered_json tools;      // null: no tools
  nlohmann::ordered_json documents;  // null: no documents
  bool add_generation_prompt = false;
  nlohmann::ordered_json kwargs = nlohmann::ordered_json::object();
  std::string template_name;  // "" : the default choice (above)
};

class ChatTemplates {
 public:
  // From a model folder or a tokenizer_config.json path. InputError when there is no
  // chat template, when a file is malformed, or when a template uses what tinylm does
  // not support (TemplateError, naming file, construct and line).
  static ChatTemplates load(const std::string& path);

  // From the text of a tokenizer_config.json (`where` names it in messages), and the
  // text of a chat_template.jinja when there is one (nullptr: none; jinja_where names it).
  static ChatTemplates from_config_text(std::string_view config_json, const std::string& where,
                                        const std::string* jinja_text = nullptr,
                                        const std::string& jinja_where = "chat_template.jinja");

  // The names of the templates ("default" for a single one).
  std::vector<std::string> names() const;
  // bos_token, eos_token ... as the template sees them (only those the config sets).
  const nlohmann::ordered_json& special_tokens() const { return special_tokens_; }

  // The prompt. TemplateError when rendering fails; RaisedException (a TemplateError)
  // when the template refuses the conversation with raise_exception(message).
  std::string render(const ChatRequest& request, const RenderOptions& options = {}) const;

  // The template a request renders with (the choice described above).
  const Template& pick(const std::string& name, bool with_tools) const;

 private:
  std::map<std::string, Template> templates_;
  bool single_ = true;  // one template, not a named list
  std::string where_;
  nlohmann::ordered_json special_tokens_ = nlohmann::ordered_json::object();
};

}  // namespace tinylm::jinja
