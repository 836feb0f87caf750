// The regexes of tokenizer.json files (Split pre-tokenizers, Replace normalizers and
// decoders), matched as transformers.js matches them: JavaScript regexes with the "u"
// flag, through PCRE2 (UTF, JIT). The pattern is rewritten first:
//   - as transformers.js does: "\#", "\&", "\~" lose their backslash, and the
//     contraction group "(?i:'s|'t|'re|'ve|'m|'ll|'d)" (which JavaScript cannot parse)
//     becomes "(?:'([sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))";
//   - to JavaScript's meaning: \p{L}, \p{N} and \s as node's Unicode (hf_json_unicode.h)
//     sees them; \S; \d, \w (ASCII, as JavaScript's); \uXXXX and \u{X}; "." not matching
//     line terminators; "$" only at the end.
// A pattern that does not compile is an InputError naming it.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tinylm {

// The PCRE2 spelling of a tokenizer.json regex (see above).
std::string js_regex_to_pcre(std::string_view pattern);

class HfRegex {
 public:
  // A "Regex" pattern (is_regex) or a "String" pattern (matched literally).
  HfRegex(std::string_view pattern, bool is_regex);
  ~HfRegex();
  HfRegex(const HfRegex&) = delete;
  HfRegex& operator=(const HfRegex&) = delete;

  // The non-empty matches in text (valid UTF-8), left to right, as (begin, end) byte
  // offsets; appended to out.
  void find_all(std::string_view text, std::vector<std::pair<size_t, size_t>>& out) const;
  // text with every match replaced by content.
  std::string replace_all(std::string_view text, std::string_view content) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tinylm
