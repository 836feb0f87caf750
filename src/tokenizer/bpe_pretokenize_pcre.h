// A reference GPT-2 pre-tokeniser built on PCRE2 (UTF + UCP + JIT), used by the tests
// to check the hand-written matcher in bpe_pretokenize.h, and usable for other patterns.
// \s is spelled out as Unicode White_Space, which is what Rust's regex (tiktoken) means
// by \s; PCRE2's own \s differs on a few code points (e.g. U+180E).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

// GPT-2's pattern, with \s replaced by an explicit White_Space class.
extern const char* const kGpt2PatternPcre;

class PcreSplitter {
 public:
  // Throws InputError if the pattern does not compile.
  explicit PcreSplitter(const std::string& pattern = kGpt2PatternPcre);
  ~PcreSplitter();
  PcreSplitter(const PcreSplitter&) = delete;
  PcreSplitter& operator=(const PcreSplitter&) = delete;

  // All matches, left to right (text must be valid UTF-8; throws InputError if not).
  std::vector<std::string_view> split(std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tinylm
