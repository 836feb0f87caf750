// The tokenizer of the 3-digit addition task (kind "addition"; the problems themselves
// are made by data/addition.h). A fixed vocabulary of 14 tokens:
//
//   id:    0..9        10    11    12       13
//   text:  '0'..'9'    '+'   '='   "<PAD>"  "<EOS>"
//
// encode("123+456=9750<EOS>") -> [1,2,3,10,4,5,6,11,9,7,5,0,13]; decode is the inverse.
// Any other text is an InputError naming the character and its byte position.
// eot_id() is <EOS> (13): it ends an answer the way <|endoftext|> ends a document, so
// generation stops there. JSON: {"kind": "addition"}.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tinylm {

class AdditionTokenizer : public Tokenizer {
 public:
  static constexpr int32_t kPlus = 10;
  static constexpr int32_t kEquals = 11;
  static constexpr int32_t kPad = 12;
  static constexpr int32_t kEos = 13;
  static constexpr int32_t kVocabSize = 14;

  // Inverse of to_json(); throws InputError unless j is {"kind": "addition"}.
  static AdditionTokenizer from_json(const nlohmann::json& j);

  std::string kind() const override { return "addition"; }
  int64_t vocab_size() const override { return kVocabSize; }
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  nlohmann::json to_json() const override;
  int32_t eot_id() const override { return kEos; }
};

}  // namespace tinylm
