// Checks a tokenizer against reference encodings stored as JSONL, one case per line:
//   {"text": "...", "ids": [...], "allowed_special": ["<|endoftext|>"] | "all"}
// ("allowed_special" absent: none allowed, as tiktoken's encode() with its defaults, so a
// text holding a special token's spelling is an error, as tiktoken raises one). Used by
// `tinylm tokenize --check`, the fixture test and the tiktoken differential test.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_tokenizer.h"

namespace tinylm {

struct CheckMismatch {
  size_t line = 0;
  std::string text;
  std::vector<int32_t> expected, got;
  std::string error;  // when encoding threw instead
};

struct BpeCheckResult {
  size_t passed = 0, failed = 0;
  std::vector<CheckMismatch> mismatches;  // the first few
};

// Throws InputError("name:line: ...") on a malformed line; keeps the first `keep`
// mismatches. Empty lines are skipped.
BpeCheckResult check_jsonl(const BpeTokenizer& tokenizer, std::string_view jsonl,
                           const std::string& name, size_t keep = 5);

// "[1, 2, 3]"
std::string format_ids(const std::vector<int32_t>& ids);

}  // namespace tinylm
