// The tojson filter, as @huggingface/jinja writes JSON (after Python's json.dumps):
// ", " and ": " between items and keys, or "," and ": " with an indent; keys in insertion
// order; non-ASCII kept unless ensure_ascii.
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "jinja/value.h"

namespace tinylm::jinja {

struct JsonStyle {
  int indent = 0;  // spaces per level; 0: one line
  bool ensure_ascii = false;
  std::optional<std::pair<std::string, std::string>> separators;  // (item, key)
};

// The JSON text of v. Undefined is "null", or "undefined" when !undefined_as_null (a list
// printed by {{ }}). A tuple and a function have no JSON: TemplateError, as in
// @huggingface/jinja.
std::string to_json(const Value& v, const JsonStyle& style, bool undefined_as_null = true);

}  // namespace tinylm::jinja
