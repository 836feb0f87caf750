// The "pre_tokenizer" of a tokenizer.json file: cuts normalized text into words, which
// the model encodes one by one. Steps, in a Sequence or alone:
//   Split {"pattern": String or Regex, "behavior", "invert"}   cut at the matches:
//       Isolated (match and gaps each a word), Removed (gaps only), MergedWithPrevious,
//       MergedWithNext, Contiguous (runs of matches together), as Hugging Face's
//       tokenizers library defines them; invert swaps matches and gaps
//   Metaspace {"replacement", "prepend_scheme", "split"}       spaces -> replacement,
//       prepended to the text (always, or only to the first stretch of text), split before
//       each replacement when "split"
//   Digits {"individual_digits"}                                 ASCII digits cut from
//       the rest: each digit a word (individual_digits) or each run of them; the words
//       of transformers.js's /[^\d]+|\d/gu or /[^\d]+|\d+/gu, whose \d is 0-9 only ("²",
//       "١٢", "Ⅻ" stay in their words; the Rust library's Digits cuts char::is_numeric)
//   ByteLevel {"add_prefix_space", "use_regex"}                 a space prepended to words
//       that do not start with one; GPT-2's pattern cut (JavaScript's \s); then the words
//       are spelled in bytes: the model is byte-level. ByteLevel must come last.
// Each step cuts every word of the step before it on its own (a Sequence, as
// transformers.js's, never looks across those cuts: ByteLevel's pattern runs per word).
// Any other type is an InputError naming it.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/hf_json_regex.h"

namespace tinylm {

// Words as byte spans of one buffer.
struct HfWords {
  std::string text;
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // (begin, end)
  std::string_view word(size_t i) const {
    return std::string_view(text).substr(spans[i].first, spans[i].second - spans[i].first);
  }
};

class HfPreTokenizer {
 public:
  HfPreTokenizer() = default;
  // j: the "pre_tokenizer" value (null: none); where: "<file>: pre_tokenizer".
  HfPreTokenizer(const nlohmann::json& j, const std::string& where);
  // Whether the last step is ByteLevel (the model then works on bytes).
  bool byte_level() const { return byte_level_; }
  // Cuts text (a stretch between added tokens; first: the first such stretch) into out.
  void split(std::string_view text, bool first, HfWords& out) const;

 private:
  enum class Behavior { kIsolated, kRemoved, kMergedWithPrevious, kMergedWithNext, kContiguous };
  struct Step {
    enum Kind { kSplit, kMetaspace, kDigits, kByteLevel } kind;
    std::shared_ptr<HfRegex> regex;  // Split's pattern; ByteLevel's (when use_regex)
    Behavior behavior = Behavior::kIsolated;
    bool invert = false;
    std::string replacement;  // Metaspace
    enum Prepend { kAlways, kFirst, kNever } prepend = kAlways;
    bool split = true;               // Metaspace
    bool individual_digits = false;  // Digits
    bool add_prefix_space = false;   // ByteLevel
  };
  void add(const nlohmann::json& j, const std::string& where);
  void apply_split(const Step& s, HfWords& words) const;
  void apply_metaspace(const Step& s, bool first, HfWords& words) const;
  void apply_digits(const Step& s, HfWords& words) const;
  void apply_byte_level(const Step& s, HfWords& words) const;

  std::vector<Step> steps_;
  bool byte_level_ = false;
};

}  // namespace tinylm
