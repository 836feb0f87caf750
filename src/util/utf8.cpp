#include "util/utf8.h"

#include "util/error.h"

namespace tinylm {

int utf8_decode_one(std::string_view s, size_t pos, char32_t* out) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b0 = byte(pos);
  if (b0 < 0x80) {
    *out = b0;
    return 1;
  }
  int len;
  char32_t cp, min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (pos + len > s.size()) return 0;
  for (int i = 1; i < len; ++i) {
    const unsigned char b = byte(pos + i);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *out = cp;
  return len;
}

size_t utf8_first_invalid(std::string_view text) {
  char32_t cp;
  for (size_t pos = 0; pos < text.size();) {
    const int n = utf8_decode_one(text, pos, &cp);
    if (n == 0) return pos;
    pos += n;
  }
  return std::string_view::npos;
}

std::vector<char32_t> utf8_decode(std::string_view text, const std::string& what) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  char32_t cp;
  for (size_t pos = 0; pos < text.size();) {
    const int n = utf8_decode_one(text, pos, &cp);
    if (n == 0) throw InputError(what + ": invalid UTF-8 at byte " + std::to_string(pos));
    out.push_back(cp);
    pos += n;
  }
  return out;
}

void utf8_append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf8_encode(const std::vector<char32_t>& cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) utf8_append(out, cp);
  return out;
}

}  // namespace tinylm
