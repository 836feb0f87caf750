#include "jinja/to_json.h"

#include <cmath>

#include "jinja/error.h"
#include "jinja/js_text.h"
#include "util/utf8.h"

namespace tinylm::jinja {
namespace {

// ensure_ascii: every UTF-16 unit from U+007F up as \uXXXX (lower-case hex), as
// @huggingface/jinja rewrites JSON.stringify's output.
std::string ascii_safe(const std::string& json) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  const auto escape = [&](unsigned unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += hex[(unit >> shift) & 15];
  };
  for (size_t pos = 0; pos < json.size();) {
    char32_t cp;
    const int n = utf8_decode_one(json, pos, &cp);
    if (n == 0) throw TemplateError("tojson: text is not valid UTF-8");
    pos += n;
    if (cp < 0x7F) {
      out += static_cast<char>(cp);
    } else if (cp < 0x10000) {
      escape(cp);
    } else {
      escape(0xD800 + ((cp - 0x10000) >> 10));
      escape(0xDC00 + ((cp - 0x10000) & 0x3FF));
    }
  }
  return out;
}

std::string number_json(double x) {
  return std::isfinite(x) ? js_number(x) : "null";
}

struct Writer {
  const JsonStyle& style;
  bool undefined_as_null;
  std::string item_sep, key_sep, unit;

  std::string string_json(const std::string& s) const {
    const std::string quoted = js_json_quote(s);
    return style.ensure_ascii ? ascii_safe(quoted) : quoted;
  }

  std::string write(const Value& v, int depth) const {
    switch (v.kind()) {
      case Kind::None:
        return "null";
      case Kind::Undefined:
        return undefined_as_null ? "null" : "undefined";
      case Kind::Bool:
        return v.as_bool() ? "true" : "false";
      case Kind::Int:
        return number_json(double(v.as_int()));
      case Kind::Float:
        return number_json(v.as_float());
      case Kind::String:
        return string_json(v.as_string());
      case Kind::List:
        if (v.is_tuple()) throw TemplateError("cannot convert a tuple to JSON");
        return write_list(v.as_list(), depth);
      case Kind::Dict:
      case Kind::Namespace:
        return write_dict(v.as_dict(), depth);
      case Kind::Function:
        throw TemplateError("cannot convert a function to JSON");
    }
    return "";
  }

  std::string padding(int depth) const {
    std::string out = "\n";
    for (int i = 0; i < depth; ++i) out += unit;
    return out;
  }

  // Empty containers are [] and {} even when indenting, as json.dumps writes them.
  std::string write_list(const std::vector<Value>& items, int depth) const {
    const bool indented = style.indent > 0 && !items.empty();
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += item_sep;
      if (indented) out += padding(depth + 1);
      out += write(items[i], depth + 1);
    }
    if (indented) out += padding(depth);
    return out + "]";
  }

  std::string write_dict(const Dict& d, int depth) const {
    const bool indented = style.indent > 0 && !d.items.empty();
    std::string out = "{";
    for (size_t i = 0; i < d.items.size(); ++i) {
      if (i) out += item_sep;
      if (indented) out += padding(depth + 1);
      out += string_json(d.items[i].first) + key_sep + write(d.items[i].second, depth + 1);
    }
    if (indented) out += padding(depth);
    return out + "}";
  }
};

}  // namespace

std::string to_json(const Value& v, const JsonStyle& style, bool undefined_as_null) {
  if (style.indent < 0) throw TemplateError("tojson: indent must not be negative");
  Writer w{style, undefined_as_null, ", ", ": ", std::string(style.indent, ' ')};
  if (style.separators) {
    w.item_sep = style.separators->first;
    w.key_sep = style.separators->second;
  } else if (style.indent > 0) {
    w.item_sep = ",";
  }
  return w.write(v, 0);
}

}  // namespace tinylm::jinja
