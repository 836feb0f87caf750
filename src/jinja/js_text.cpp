#include "jinja/js_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "util/utf8.h"

namespace tinylm::jinja {
namespace {

// Decodes s; the template layer only ever holds valid UTF-8 (templates and messages are
// checked when they come in), so a bad byte is kept as U+FFFD rather than thrown.
std::u32string decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    char32_t cp;
    const int n = utf8_decode_one(s, pos, &cp);
    out += n ? cp : U'\uFFFD';
    pos += n ? n : 1;
  }
  return out;
}

std::string encode(std::u32string_view cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) utf8_append(out, cp);
  return out;
}

// Latin Extended-A pairs its cases in two runs: upper at even code points (U+0100..0137,
// U+014A..0177) and upper at odd ones (U+0139..0148, U+0179..017E).
bool latin_a_upper_even(char32_t cp) {
  return (cp >= 0x100 && cp <= 0x137) || (cp >= 0x14A && cp <= 0x177);
}
bool latin_a_upper_odd(char32_t cp) {
  return (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
}

void append_upper(std::u32string& out, char32_t c) {
  if (c >= 'a' && c <= 'z') return out.push_back(c - 32);
  if (c < 0x80) return out.push_back(c);
  if (c == 0xDF) return void(out.append(U"SS"));
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return out.push_back(c - 32);
  if (c == 0xFF) return out.push_back(0x178);
  if (c == 0xB5) return out.push_back(0x39C);
  if (c == 0x131) return out.push_back('I');
  if (c == 0x17F) return out.push_back('S');
  if (latin_a_upper_even(c) && c % 2 == 1) return out.push_back(c - 1);
  if (latin_a_upper_odd(c) && c % 2 == 0) return out.push_back(c - 1);
  if (c == 0x3C2) return out.push_back(0x3A3);
  if ((c >= 0x3B1 && c <= 0x3C1) || (c >= 0x3C3 && c <= 0x3CB)) return out.push_back(c - 32);
  if (c == 0x3AC) return out.push_back(0x386);
  if (c >= 0x3AD && c <= 0x3AF) return out.push_back(c - 37);
  if (c == 0x3CC) return out.push_back(0x38C);
  if (c == 0x3CD || c == 0x3CE) return out.push_back(c - 63);
  if (c >= 0x430 && c <= 0x44F) return out.push_back(c - 32);
  if (c >= 0x450 && c <= 0x45F) return out.push_back(c - 80);
  out.push_back(c);
}

bool is_cased_letter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0x24F) ||
         (c >= 0x386 && c <= 0x3CE) || (c >= 0x400 && c <= 0x45F);
}

void append_lower(std::u32string& out, const std::u32string& s, size_t i) {
  const char32_t c = s[i];
  if (c >= 'A' && c <= 'Z') return out.push_back(c + 32);
  if (c < 0x80) return out.push_back(c);
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return out.push_back(c + 32);
  if (c == 0x178) return out.push_back(0xFF);
  if (c == 0x130) return void(out.append(U"i\u0307"));
  if (latin_a_upper_even(c) && c % 2 == 0) return out.push_back(c + 1);
  if (latin_a_upper_odd(c) && c % 2 == 1) return out.push_back(c + 1);
  if (c == 0x3A3) {  // final sigma: after a letter and not before one, as JavaScript does
    const bool after = i > 0 && is_cased_letter(s[i - 1]);
    const bool before = i + 1 < s.size() && is_cased_letter(s[i + 1]);
    return out.push_back(after && !before ? 0x3C2 : 0x3C3);
  }
  if ((c >= 0x391 && c <= 0x3A1) || (c >= 0x3A4 && c <= 0x3AB)) return out.push_back(c + 32);
  if (c == 0x386) return out.push_back(0x3AC);
  if (c >= 0x388 && c <= 0x38A) return out.push_back(c + 37);
  if (c == 0x38C) return out.push_back(0x3CC);
  if (c == 0x38E || c == 0x38F) return out.push_back(c + 63);
  if (c >= 0x410 && c <= 0x42F) return out.push_back(c + 32);
  if (c >= 0x400 && c <= 0x40F) return out.push_back(c + 80);
  out.push_back(c);
}

bool is_ascii_word(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The UTF-16 units of s.
std::u16string utf16(std::string_view s) {
  std::u16string out;
  for (char32_t cp : decode(s)) {
    if (cp < 0x10000) {
      out.push_back(static_cast<char16_t>(cp));
    } else {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    }
  }
  return out;
}

size_t skip_js_space(std::string_view s, size_t pos) {
  while (pos < s.size()) {
    char32_t cp;
    const int n = utf8_decode_one(s, pos, &cp);
    if (n == 0 || !is_js_space(cp)) break;
    pos += n;
  }
  return pos;
}

size_t skip_digits(std::string_view s, size_t pos) {
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
  return pos;
}

}  // namespace

bool is_js_space(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000 || c == 0xFEFF;
}

std::string js_trim_start(std::string_view s) {
  return std::string(s.substr(skip_js_space(s, 0)));
}

std::string js_trim_end(std::string_view s) {
  const std::u32string cps = decode(s);
  size_t end = cps.size();
  while (end > 0 && is_js_space(cps[end - 1])) --end;
  return encode(std::u32string_view(cps).substr(0, end));
}

std::string js_trim(std::string_view s) {
  return js_trim_end(js_trim_start(s));
}

std::string js_upper(std::string_view s) {
  std::u32string out;
  for (char32_t c : decode(s)) append_upper(out, c);
  return encode(out);
}

std::string js_lower(std::string_view s) {
  const std::u32string cps = decode(s);
  std::u32string out;
  for (size_t i = 0; i < cps.size(); ++i) append_lower(out, cps, i);
  return encode(out);
}

std::string js_title(std::string_view s) {
  std::u32string cps = decode(s);
  for (size_t i = 0; i < cps.size(); ++i) {
    const bool boundary = i == 0 || !is_ascii_word(cps[i - 1]);
    if (boundary && cps[i] >= 'a' && cps[i] <= 'z') cps[i] -= 32;
  }
  return encode(cps);
}

std::string js_capitalize(std::string_view s) {
  char32_t cp;
  const int n = s.empty() ? 0 : utf8_decode_one(s, 0, &cp);
  if (n == 0 || cp >= 0x10000) return std::string(s);
  return js_upper(s.substr(0, n)) + std::string(s.substr(n));
}

int64_t js_length(std::string_view s) {
  int64_t n = 0;
  for (char32_t cp : decode(s)) n += cp >= 0x10000 ? 2 : 1;
  return n;
}

bool js_char_at(std::string_view s, int64_t i, std::string* out) {
  const std::u16string units = utf16(s);
  const int64_t n = static_cast<int64_t>(units.size());
  if (i < 0) i += n;
  if (i < 0 || i >= n) return false;
  const char16_t u = units[static_cast<size_t>(i)];
  out->clear();
  utf8_append(*out, u >= 0xD800 && u <= 0xDFFF ? U'\uFFFD' : char32_t(u));
  return true;
}

std::string js_number(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return "0";
  std::string sign = x < 0 ? "-" : "";
  char buf[64];
  // The shortest digits that read back as x, in scientific form: "d.ddde+XX".
  const auto res =
      std::to_chars(buf, buf + sizeof buf, std::fabs(x), std::chars_format::scientific);
  const std::string sci(buf, res.ptr);
  const size_t e_at = sci.find('e');
  std::string digits = sci.substr(0, 1) + (e_at > 2 ? sci.substr(2, e_at - 2) : "");
  const int exp10 = std::atoi(sci.c_str() + e_at + 1);
  const int k = static_cast<int>(digits.size()), n = exp10 + 1;
  // ECMAScript Number::toString: plain digits for 1e-7 < |x| < 1e21, else exponent form.
  if (k <= n && n <= 21) return sign + digits + std::string(n - k, '0');
  if (0 < n && n <= 21) return sign + digits.substr(0, n) + "." + digits.substr(n);
  if (-6 < n && n <= 0) return sign + "0." + std::string(-n, '0') + digits;
  const std::string e = (n - 1 >= 0 ? "e+" : "e-") + std::to_string(std::abs(n - 1));
  return sign + digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "") + e;
}

std::string js_json_quote(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

bool js_parse_int(std::string_view s, double* out) {
  size_t pos = skip_js_space(s, 0);
  const bool negative = pos < s.size() && s[pos] == '-';
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) ++pos;
  const size_t end = skip_digits(s, pos);
  if (end == pos) return false;
  double v = 0;
  for (size_t i = pos; i < end; ++i) v = v * 10 + (s[i] - '0');
  *out = negative ? -v : v;
  return true;
}

bool js_parse_float(std::string_view s, double* out) {
  const size_t start = skip_js_space(s, 0);
  size_t pos = start;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) ++pos;
  if (s.substr(pos, 8) == "Infinity") {
    *out = s[start] == '-' ? -INFINITY : INFINITY;
    return true;
  }
  const size_t int_end = skip_digits(s, pos);
  size_t end = int_end;
  if (end < s.size() && s[end] == '.') end = skip_digits(s, end + 1);
  if (end == pos || (end == pos + 1 && s[pos] == '.')) return false;
  if (end < s.size() && (s[end] == 'e' || s[end] == 'E')) {
    size_t e = end + 1;
    if (e < s.size() && (s[e] == '-' || s[e] == '+')) ++e;
    const size_t e_end = skip_digits(s, e);
    if (e_end > e) end = e_end;
  }
  *out = std::strtod(std::string(s.substr(start, end - start)).c_str(), nullptr);
  return true;
}

}  // namespace tinylm::jinja
