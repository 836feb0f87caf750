#include "tokenizer/char_as_bpe.h"

#include <set>

#include "tokenizer/bpe_vocab.h"
#include "util/utf8.h"

namespace tinylm {

BpeSpelling char_vocab_as_bpe(const std::vector<char32_t>& chars) {
  BpeSpelling s;
  std::set<std::string> joined;  // prefixes already merged
  for (const char32_t c : chars) {
    std::string bytes;
    utf8_append(bytes, c);
    s.tokens.push_back(bytes_to_token_text(bytes));
    for (size_t n = 2; n <= bytes.size(); ++n) {  // prefix of n - 1 bytes + byte n
      const std::string prefix = bytes.substr(0, n);
      if (!joined.insert(prefix).second) continue;
      s.merges.push_back(bytes_to_token_text(prefix.substr(0, n - 1)) + " " +
                         bytes_to_token_text(prefix.substr(n - 1)));
    }
  }
  return s;
}

std::optional<std::vector<char32_t>> chars_of_bpe_spelling(const std::vector<std::string>& tokens,
                                                           const std::vector<std::string>& merges,
                                                           size_t real) {
  std::vector<char32_t> chars;
  for (size_t id = 0; id < real && id < tokens.size(); ++id) {
    if (utf8_first_invalid(tokens[id]) != std::string::npos) return std::nullopt;
    std::string bytes;  // the token's bytes, back from the alphabet
    for (const char32_t cp : utf8_decode(tokens[id], "a token")) {
      const int b = unicode_to_byte(cp);
      if (b < 0) return std::nullopt;
      bytes.push_back(static_cast<char>(b));
    }
    char32_t c = 0;
    if (bytes.empty() || utf8_decode_one(bytes, 0, &c) != static_cast<int>(bytes.size()))
      return std::nullopt;  // not one character
    chars.push_back(c);
  }
  const BpeSpelling again = char_vocab_as_bpe(chars);
  if (again.merges != merges ||
      std::set<char32_t>(chars.begin(), chars.end()).size() != chars.size())
    return std::nullopt;
  return chars;
}

}  // namespace tinylm
