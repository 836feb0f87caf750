// tinylm's BPE pre-tokenisers (bpe_pretokenizer_choice.h) as the "pre_tokenizer" of a
// tokenizer.json, cutting text as tinylm does in Hugging Face's tokenizers library and in
// transformers.js:
//   gpt2           {"type": "ByteLevel", "use_regex": true, ...}: GPT-2's own file, whose
//                  regex the tokenizers library matches as tiktoken does. transformers.js
//                  (and tinylm's tokenizer.json reader, which reads as it does) matches it
//                  with JavaScript's \s, which differs from Unicode's White_Space on two
//                  characters: U+0085 (NEL) is no space there, U+FEFF (BOM) is one. Text
//                  holding either may be cut, and so encoded, differently there.
//   letters-marks  Sequence [Split (the letters-marks pattern, Isolated), ByteLevel
//                  without its regex]: no reader knows the pattern by name, so it goes
//                  in whole, with the whitespace class spelled out character by character
//                  (the engines disagree on \s) and the classes \p{L}, \p{M}, \p{N} that
//                  JavaScript, Oniguruma (the tokenizers library) and PCRE2 all read.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tokenizer/bpe_pretokenizer_choice.h"

namespace tinylm {

// The letters-marks pattern as a tokenizer.json "Regex" (kLettersMarksPatternPcre's
// matches, in the syntax of JavaScript, Oniguruma and tinylm's reader alike).
std::string letters_marks_pattern_hf();

// The "pre_tokenizer" value for p (see above).
nlohmann::json hf_pre_tokenizer_json(Pretokenizer p);

}  // namespace tinylm
