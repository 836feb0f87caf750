// tinylm's pre-tokenisers in a tokenizer.json (see hf_pretokenizer_json.h).
#include "tokenizer/hf_pretokenizer_json.h"

#include <nlohmann/json.hpp>

namespace tinylm {

namespace {

// Unicode's White_Space, as kLettersMarksPatternPcre spells it, written as the characters
// themselves: every regex engine reads a literal character as itself.
constexpr const char* kWhiteSpace =
    "\t\n\x0B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000";

nlohmann::json byte_level_step(bool use_regex) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", false},
          {"trim_offsets", true},
          {"use_regex", use_regex}};
}

}  // namespace

std::string letters_marks_pattern_hf() {
  const std::string ws = kWhiteSpace;
  return "'s|'t|'re|'ve|'m|'ll|'d| ?[\\p{L}\\p{M}]+| ?\\p{N}+| ?[^" + ws +
         "\\p{L}\\p{M}\\p{N}]+|[" + ws + "]+(?![^" + ws + "])|[" + ws + "]+";
}

nlohmann::json hf_pre_tokenizer_json(Pretokenizer p) {
  if (p == Pretokenizer::Gpt2) return byte_level_step(true);
  const nlohmann::json split = {{"type", "Split"},
                                {"pattern", {{"Regex", letters_marks_pattern_hf()}}},
                                {"behavior", "Isolated"},
                                {"invert", false}};
  return {{"type", "Sequence"}, {"pretokenizers", {split, byte_level_step(false)}}};
}

}  // namespace tinylm
