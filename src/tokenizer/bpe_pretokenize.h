// GPT-2's pre-tokenisation: the text is cut into pieces by the pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (leftmost alternative first, as in tiktoken / fancy-regex), and BPE runs inside each
// piece. This is a hand-written matcher for exactly that pattern, with Unicode classes
// from bpe_unicode_tables.h (\s is White_Space, as in Rust's regex). It is checked
// against PCRE2 (bpe_pretokenize_pcre.h) in tests.
//
// The one subtle alternative is \s+(?!\S): a whitespace run followed by a non-space
// gives back its last character, so "a   b" splits as "a", "  ", " b"; a single
// whitespace character before a non-space ("\nb") is matched by the final \s+.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_unicode_tables.h"
#include "util/error.h"

namespace tinylm {

enum class CharClass : uint8_t { kOther = 0, kLetter = 1, kNumber = 2, kSpace = 3 };

inline CharClass char_class(char32_t cp) {
  using namespace bpe_tables;
  const uint32_t block = kStage1[cp >> kBlockBits];
  return static_cast<CharClass>(kStage2[(block << kBlockBits) | (cp & ((1u << kBlockBits) - 1))]);
}

// Invalid UTF-8 in the text given to the pre-tokeniser; `byte` is the offset in it.
struct InvalidUtf8Error : InputError {
  InvalidUtf8Error(size_t at, const std::string& message) : InputError(message), byte(at) {}
  size_t byte;
};

// Throws InvalidUtf8Error("invalid UTF-8 at byte N"); out of line to keep the loop small.
[[noreturn]] void bpe_throw_invalid_utf8(size_t pos);

// Decodes one UTF-8 character at text[pos] (pos < text.size()); returns its length and
// sets *cls. Throws InputError on invalid UTF-8 (overlong, surrogate, truncated, ...).
inline int bpe_next_char(std::string_view text, size_t pos, CharClass* cls) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char b0 = s[pos];
  if (b0 < 0x80) {
    *cls = char_class(b0);
    return 1;
  }
  const size_t left = text.size() - pos;
  char32_t cp;
  int len;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (left < 2 || (s[pos + 1] & 0xC0) != 0x80) bpe_throw_invalid_utf8(pos);
    cp = ((b0 & 0x1Fu) << 6) | (s[pos + 1] & 0x3Fu);
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (left < 3 || (s[pos + 1] & 0xC0) != 0x80 || (s[pos + 2] & 0xC0) != 0x80)
      bpe_throw_invalid_utf8(pos);
    cp = ((b0 & 0x0Fu) << 12) | ((s[pos + 1] & 0x3Fu) << 6) | (s[pos + 2] & 0x3Fu);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) bpe_throw_invalid_utf8(pos);
    len = 3;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (left < 4 || (s[pos + 1] & 0xC0) != 0x80 || (s[pos + 2] & 0xC0) != 0x80 ||
        (s[pos + 3] & 0xC0) != 0x80)
      bpe_throw_invalid_utf8(pos);
    cp = ((b0 & 0x07u) << 18) | ((s[pos + 1] & 0x3Fu) << 12) | ((s[pos + 2] & 0x3Fu) << 6) |
         (s[pos + 3] & 0x3Fu);
    if (cp < 0x10000 || cp > 0x10FFFF) bpe_throw_invalid_utf8(pos);
    len = 4;
  } else {
    bpe_throw_invalid_utf8(pos);
  }
  *cls = char_class(cp);
  return len;
}

// Length in bytes of the GPT-2 piece that starts at text[pos] (pos < text.size()).
inline size_t gpt2_piece_length(std::string_view text, size_t pos) {
  const size_t n = text.size();
  const char c = text[pos];
  // 's|'t|'re|'ve|'m|'ll|'d (lowercase only: the pattern is case-sensitive)
  if (c == '\'' && pos + 1 < n) {
    const char d = text[pos + 1];
    if (d == 's' || d == 't' || d == 'm' || d == 'd') return 2;
    if (pos + 2 < n) {
      const char e = text[pos + 2];
      if ((d == 'r' && e == 'e') || (d == 'v' && e == 'e') || (d == 'l' && e == 'l')) return 3;
    }
  }
  CharClass cls;
  int len = bpe_next_char(text, pos, &cls);
  size_t end = pos + len;
  //  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+ : an optional space, then a run of one class.
  if (c == ' ' && end < n) {
    CharClass next;
    const int next_len = bpe_next_char(text, end, &next);
    if (next != CharClass::kSpace) {
      cls = next;
      end += next_len;
    }
  }
  if (cls != CharClass::kSpace) {
    while (end < n) {
      CharClass k;
      const int l = bpe_next_char(text, end, &k);
      if (k != cls) break;
      end += l;
    }
    return end - pos;
  }
  // \s+(?!\S) | \s+ : the whitespace run, minus its last character when a non-space
  // follows and the run has more than one character.
  size_t last = pos;  // start of the run's last character
  while (end < n) {
    CharClass k;
    const int l = bpe_next_char(text, end, &k);
    if (k != CharClass::kSpace) return (last > pos ? last : end) - pos;
    last = end;
    end += l;
  }
  return end - pos;
}

// Calls emit(std::string_view piece) for each piece of text, in order.
template <class Emit>
void gpt2_split(std::string_view text, Emit&& emit) {
  for (size_t pos = 0; pos < text.size();) {
    const size_t len = gpt2_piece_length(text, pos);
    emit(text.substr(pos, len));
    pos += len;
  }
}

// The pieces as a list (tests, tools).
std::vector<std::string_view> gpt2_pieces(std::string_view text);

}  // namespace tinylm
