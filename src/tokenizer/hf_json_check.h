// Checks a tokenizer.json tokenizer against reference results stored as JSONL, one case
// per line (written by tests/tokenizer/hf_json_diff/gen_cases.mjs with transformers.js):
//   {"text": "...",
//    "ids": [...],           encode(text), add_special_tokens=false
//    "ids_special": [...],   encode(text), add_special_tokens=true
//    "decoded": "...",       decode(ids_special)  (skip_special_tokens=false)
//    "decoded_skip": "...",  decode(ids_special, skip_special_tokens=true)
//    "decoded_raw": "..."}   decode(ids_special) without clean-up: the streamed text
// Every field but "text" is optional. The streamed text is the concatenation of
// decode_piece over ids_special, made valid UTF-8 (StreamDecoder). Used by
// `tinylm tokenize --tokenizer tokenizer.json --check`.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/hf_json_tokenizer.h"

namespace tinylm {

struct HfCheckMismatch {
  size_t line = 0;
  std::string text, what;  // what: which result differs
  std::string expected, got;
};

struct HfCheckResult {
  size_t passed = 0, failed = 0;
  std::vector<HfCheckMismatch> mismatches;  // the first few
};

// Throws InputError("name:line: ...") on a malformed line; keeps the first `keep`
// mismatches. Empty lines are skipped.
HfCheckResult check_hf_jsonl(const HfJsonTokenizer& tokenizer, std::string_view jsonl,
                             const std::string& name, size_t keep = 5);

}  // namespace tinylm
