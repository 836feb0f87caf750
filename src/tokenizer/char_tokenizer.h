// Character-level tokenizer (kind "char"): one token per Unicode code point, as in
// nanoGPT's shakespeare_char and Karpathy's char-rnn. A character is a code point, never
// a byte, so Bengali or emoji text works the same as ASCII.
//
//   vocabulary: the sorted unique code points of the corpus; id = index in that list
//   encode("hi") -> [id('h'), id('i')]      decode is the exact inverse
//
// Errors (InputError): invalid UTF-8 names the byte offset; a character missing from the
// vocabulary is named (as itself and as U+XXXX) with its character and byte position.
// JSON: {"kind": "char", "chars": ["\n", " ", "!", ...]} — one string per id, each exactly
// one code point (JSON escaping makes quotes, newlines and control characters safe).
// from_json also accepts "chars" as a single string holding all the characters in order.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tinylm {

class CharTokenizer : public Tokenizer {
 public:
  // chars[i] is the character with id i; they must be distinct and non-empty.
  explicit CharTokenizer(std::vector<char32_t> chars);

  // The vocabulary of a corpus: its sorted unique code points. Throws InputError for
  // empty or invalid UTF-8 text.
  static CharTokenizer from_corpus(std::string_view text);
  // Inverse of to_json(); throws InputError for a malformed description.
  static CharTokenizer from_json(const nlohmann::json& j);

  std::string kind() const override { return "char"; }
  int64_t vocab_size() const override { return static_cast<int64_t>(chars_.size()); }
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  nlohmann::json to_json() const override;

  const std::vector<char32_t>& chars() const { return chars_; }
  // The id of a character, or -1 if it is not in the vocabulary.
  int32_t id_of(char32_t c) const;

 private:
  std::vector<char32_t> chars_;
  int32_t ascii_ids_[128];  // fast path for ASCII: id or -1
  std::unordered_map<char32_t, int32_t> other_ids_;
};

// "'é' (U+00E9)" — a character for an error message: printable characters appear as
// themselves, control and whitespace characters only by their code.
std::string describe_char(char32_t c);

}  // namespace tinylm
