// The "added_tokens" of a tokenizer.json file, and cutting text at them: before any
// normalization, text is cut at every added token (special or not), scanning left to
// right and taking the longest token that starts at each position, as transformers.js
// does (and Hugging Face's tokenizers for tokens that are not "normalized").
//   lstrip / rstrip   the whitespace before / after the token is dropped
//   single_word       the token counts only where no letter, digit or _ touches it
//   normalized        read, but matched in the raw text as transformers.js does
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_bytes_map.h"

namespace tinylm {

struct HfAddedToken {
  std::string content;
  int32_t id = -1;
  bool special = false, lstrip = false, rstrip = false, single_word = false, normalized = false;
};

// A stretch of text: an added token (token >= 0, its index) or plain text between them.
struct HfSection {
  size_t begin, end;
  int32_t token;
};

class HfAddedTokens {
 public:
  HfAddedTokens() = default;
  // j: the "added_tokens" list (null: none); where: "<file>: added_tokens".
  HfAddedTokens(const nlohmann::json& j, const std::string& where);

  const std::vector<HfAddedToken>& tokens() const { return tokens_; }
  // Cuts text into sections (plain ones possibly empty after stripping).
  std::vector<HfSection> split(std::string_view text) const;

 private:
  // The longest token matching at text[pos], or -1.
  int32_t match_at(std::string_view text, size_t pos, size_t* length) const;

  std::vector<HfAddedToken> tokens_;
  // A trie over the tokens' bytes: (node, byte) -> child; node 0 is the root.
  PairMap children_;
  std::vector<int32_t> ends_;       // node -> index of the token ending there, or -1
  std::array<bool, 256> starts_{};  // bytes that start a token: elsewhere no lookup
};

// JavaScript's whitespace (String.prototype.trim): at text[pos], its length or 0.
size_t js_space_length(std::string_view text, size_t pos);

}  // namespace tinylm
