// Word-level tokenizer (kind "word"): SimpleTokenizerV2 from Raschka, "Build a Large
// Language Model (From Scratch)", chapter 2.
//
//   split:  Python re.split(r'([,.:;?_!"()\']|--|\s)', text), keeping the delimiters,
//           then [p.strip() for p in pieces if p.strip()]. So a token is one of the
//           punctuation characters , . : ; ? _ ! " ( ) ', the two-character "--", or a
//           maximal run of other non-whitespace characters; whitespace only separates.
//   vocab:  the sorted unique tokens of the corpus (by code point, as Python's sorted),
//           then "<|endoftext|>" and "<|unk|>" appended in that order. The two specials
//           are never also counted as words, so each has exactly one id.
//   encode: split, then every token not in the vocabulary becomes <|unk|>. The text
//           "<|endoftext|>" splits as a single token, so it maps to its own id.
//   decode: the tokens joined with single spaces, then the space removed before
//           , . ? ! " ( ) '  (Python: re.sub(r'\s+([,.?!"()\'])', r'\1', text)).
//
// Whitespace is Unicode whitespace exactly as Python's str.isspace() and re's \s define
// it for str patterns: U+0009..000D, U+001C..001F, U+0020, U+0085, U+00A0, U+1680,
// U+2000..200A, U+2028, U+2029, U+202F, U+205F, U+3000. Since every whitespace character
// is itself a delimiter, a word never contains whitespace, and the str.strip() step only
// drops the whitespace delimiters. Results therefore match the Python code on any text.
// Invalid UTF-8 is an InputError naming the byte offset.
// JSON: {"kind": "word", "words": [all tokens in id order, the two specials included]}.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tinylm {

// Python's str.isspace() for one code point (see above).
bool is_python_space(char32_t c);

// The chapter 2 split: tokens in order, whitespace dropped. Throws InputError for
// invalid UTF-8.
std::vector<std::string> split_words(std::string_view text);

class WordTokenizer : public Tokenizer {
 public:
  static constexpr const char* kEndOfText = "<|endoftext|>";
  static constexpr const char* kUnknown = "<|unk|>";

  // words[i] is the token with id i. It must contain both specials (exactly once) and no
  // other duplicate.
  explicit WordTokenizer(std::vector<std::string> words);

  // The chapter 2 vocabulary of a corpus (see above). Throws InputError for invalid
  // UTF-8 or a corpus without any token.
  static WordTokenizer from_corpus(std::string_view text);
  // Inverse of to_json(); throws InputError for a malformed description.
  static WordTokenizer from_json(const nlohmann::json& j);

  std::string kind() const override { return "word"; }
  int64_t vocab_size() const override { return static_cast<int64_t>(words_.size()); }
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string decode_piece(int32_t id, bool first) const override;
  nlohmann::json to_json() const override;
  int32_t eot_id() const override { return eot_id_; }

  int32_t unk_id() const { return unk_id_; }
  const std::vector<std::string>& words() const { return words_; }
  // The id of a token, or -1 if it is not in the vocabulary.
  int32_t id_of(const std::string& word) const;

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int32_t> ids_;
  int32_t eot_id_ = -1, unk_id_ = -1;
};

}  // namespace tinylm
