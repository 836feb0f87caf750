// A Jinja template as Hugging Face chat templates use it, rendered exactly as
// @huggingface/jinja (the Jinja of transformers.js and the Hub) renders it.
//
//   jinja::Template t(text);                 // parses: TemplateError for what is not
//                                            //   supported, naming construct and line
//   std::string s = t.render(variables);     // a JSON object of names -> values
//
// docs/chat-templates.md lists the supported subset.
#pragma once
#include <ctime>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tinylm::jinja {

struct Node;

struct RenderOptions {
  // What strftime_now() reads; unset: the local time now.
  std::function<std::tm()> clock;
  // Bounds on one render, so that a template that loops without end or doubles a string
  // thirty times fails (TemplateError) instead of running out of time or memory: the
  // expressions and statements it may evaluate, and the largest string (bytes) or list
  // (items x 16) it may build. Real chat templates use a few per message.
  int64_t max_steps = 20'000'000;
  size_t max_bytes = size_t(128) << 20;
};

class Template {
 public:
  // TemplateError "<name>: line N: ..." when the text does not parse or uses a construct
  // outside the subset (an unknown tag, filter or test, argument unpacking). name says
  // where the template came from in every message ("tokenizer_config.json: chat_template").
  explicit Template(std::string_view source, std::string name = "template");

  // Renders with `variables` (a JSON object; its values become template values as
  // JavaScript's JSON.parse would make them: whole numbers are integers, keys keep their
  // order). TemplateError when rendering fails, RaisedException when the template calls
  // raise_exception(message).
  std::string render(const nlohmann::ordered_json& variables,
                     const RenderOptions& options = {}) const;

 private:
  std::string name_;
  std::shared_ptr<const std::vector<std::unique_ptr<Node>>> program_;
};

}  // namespace tinylm::jinja
