#include "tokenizer/hf_json_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "tokenizer/hf_json_fields.h"
#include "tokenizer/hf_json_unicode.h"
#include "util/error.h"

namespace tinylm {

namespace {

// The class body of a JavaScript escape (\s, \d, \w, \p{L}, \p{N}), or nullptr.
const char* class_body(std::string_view escape) {
  if (escape == "\\s") return pcre_js_space_class();
  if (escape == "\\d") return "0-9";
  if (escape == "\\w") return "A-Za-z0-9_";
  if (escape == "\\p{L}") return pcre_letter_class();
  if (escape == "\\p{N}") return pcre_number_class();
  return nullptr;
}

// The length of the escape starting at p[i] == '\\' ("\\s", "\\p{L}", "\\u00A0", "\\u{1F600}").
size_t escape_length(std::string_view p, size_t i) {
  if (i + 1 >= p.size()) return 1;
  const char c = p[i + 1];
  const bool braces = i + 2 < p.size() && p[i + 2] == '{';
  if ((c == 'p' || c == 'P' || c == 'u') && braces) {
    const size_t close = p.find('}', i);
    return close == std::string_view::npos ? 2 : close - i + 1;
  }
  return c == 'u' ? 6 : 2;
}

std::string escape_literal(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}/-").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string js_regex_to_pcre(std::string_view pattern) {
  std::string p(pattern);
  for (const char* c : {"#", "&", "~"}) p = hf_json::replace_all(p, std::string("\\") + c, c);
  p = hf_json::replace_all(p, "(?i:'s|'t|'re|'ve|'m|'ll|'d)",
                           "(?:'([sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))");
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < p.size();) {
    const char c = p[i];
    if (c != '\\') {
      if (c == '[' && !in_class)
        in_class = true;
      else if (c == ']' && in_class)
        in_class = false;
      if (c == '.' && !in_class) {
        out += "[^\\n\\r\\x{2028}\\x{2029}]";
      } else {
        out += c;
      }
      ++i;
      continue;
    }
    const size_t n = std::min(escape_length(p, i), p.size() - i);
    const std::string_view esc = std::string_view(p).substr(i, n);
    i += n;
    if (const char* body = class_body(esc)) {
      out += in_class ? std::string(body) : "[" + std::string(body) + "]";
    } else if (esc == "\\S" || esc == "\\D" || esc == "\\W" || esc == "\\P{L}" || esc == "\\P{N}") {
      std::string lower(esc);
      lower[1] = static_cast<char>(lower[1] - 'A' + 'a');
      require(!in_class, [&] {
        return "regex \"" + std::string(pattern) + "\": " + std::string(esc) +
               " inside a character class is not supported";
      });
      out += "[^" + std::string(class_body(lower)) + "]";
    } else if (esc.size() >= 2 && esc[1] == 'u') {
      const bool braces = esc.size() > 2 && esc[2] == '{';
      out += "\\x{" + std::string(braces ? esc.substr(3, esc.size() - 4) : esc.substr(2)) + "}";
    } else {
      out += esc;
    }
  }
  return out;
}

struct HfRegex::Impl {
  pcre2_code* code = nullptr;
};

namespace {

// Match data for one call (matching may run on several threads at once).
struct MatchData {
  explicit MatchData(const pcre2_code* code)
      : data(pcre2_match_data_create_from_pattern(code, nullptr)) {}
  ~MatchData() { pcre2_match_data_free(data); }
  pcre2_match_data* data;
};

}  // namespace

HfRegex::HfRegex(std::string_view pattern, bool is_regex) : impl_(std::make_unique<Impl>()) {
  const std::string pcre = is_regex ? js_regex_to_pcre(pattern) : escape_literal(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  impl_->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pcre.c_str()), pcre.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &error, &offset, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw InputError("regex \"" + std::string(pattern) +
                     "\" does not compile: " + reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter
}

HfRegex::~HfRegex() {
  pcre2_code_free(impl_->code);
}

void HfRegex::find_all(std::string_view text, std::vector<std::pair<size_t, size_t>>& out) const {
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  const MatchData md(impl_->code);
  size_t pos = 0;
  while (pos <= text.size()) {
    const int rc =
        pcre2_match(impl_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md.data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    require(rc >= 0, "regex match failed at byte " + std::to_string(pos));
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.data);
    if (ov[1] > ov[0]) {
      out.emplace_back(ov[0], ov[1]);
      pos = ov[1];
      continue;
    }
    // An empty match: step over one character, as JavaScript's matchAll does with "u".
    pos = ov[0] + 1;
    while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  }
}

std::string HfRegex::replace_all(std::string_view text, std::string_view content) const {
  std::vector<std::pair<size_t, size_t>> matches;
  find_all(text, matches);
  if (matches.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t prev = 0;
  for (const auto& [b, e] : matches) {
    out.append(text.substr(prev, b - prev));
    out.append(content);
    prev = e;
  }
  out.append(text.substr(prev));
  return out;
}

}  // namespace tinylm
