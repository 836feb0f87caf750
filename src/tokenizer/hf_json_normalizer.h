// The "normalizer" of a tokenizer.json file, applied to each stretch of text between
// added tokens before it is cut into words: a Sequence of
//   NFC                                     Unicode NFC (hf_json_unicode.h)
//   Prepend {"prepend": s}                  s + text
//   Replace {"pattern": p, "content": s}    every match of p (String or Regex) -> s
// Any other type is an InputError naming it.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/hf_json_regex.h"

namespace tinylm {

class HfNormalizer {
 public:
  HfNormalizer() = default;
  // j: the "normalizer" value (null: none); where: "<file>: normalizer".
  HfNormalizer(const nlohmann::json& j, const std::string& where);
  bool empty() const { return steps_.empty(); }
  std::string apply(std::string_view text) const;

 private:
  struct Step {
    enum Kind { kNfc, kPrepend, kReplace } kind;
    std::string text;                // Prepend's string, Replace's content
    std::string literal;             // Replace with a String pattern
    std::shared_ptr<HfRegex> regex;  // Replace with a Regex pattern
  };
  void add(const nlohmann::json& j, const std::string& where);
  std::vector<Step> steps_;
};

}  // namespace tinylm
