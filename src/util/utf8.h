// UTF-8 decoding and encoding of Unicode code points. Invalid input (overlong forms,
// surrogates, truncated sequences, bytes that cannot start a character) is reported
// with the byte offset where it starts.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

// Decodes the code point starting at text[pos]; returns its length in bytes, or 0 when
// the bytes there are not valid UTF-8.
int utf8_decode_one(std::string_view text, size_t pos, char32_t* out);

// Decodes all of text; throws InputError("<what>: invalid UTF-8 at byte N") when invalid.
std::vector<char32_t> utf8_decode(std::string_view text, const std::string& what = "text");

// Byte offset of the first invalid sequence, or npos when text is valid UTF-8.
size_t utf8_first_invalid(std::string_view text);

void utf8_append(std::string& out, char32_t cp);
std::string utf8_encode(const std::vector<char32_t>& cps);

}  // namespace tinylm
