// Unicode as transformers.js (JavaScript, node's ICU) sees it, for the tokenizer.json
// reader: NFC (String.prototype.normalize("NFC")) and the character classes \p{L},
// \p{N} and JavaScript's \s as PCRE2 class bodies. The data is generated from node by
// tests/tokenizer/hf_json_diff/gen_unicode_tables.mjs (hf_json_unicode_tables.h).
#pragma once
#include <string>
#include <string_view>

namespace tinylm {

// The NFC form of valid UTF-8 text. Text whose code points are all below U+0300 (which
// neither decompose nor combine) is returned as it is without further work.
std::string nfc(std::string_view text);

// Bodies of PCRE2 character classes ("\x{41}-\x{5A}..."), to go between [ and ].
const char* pcre_letter_class();
const char* pcre_number_class();
const char* pcre_js_space_class();

}  // namespace tinylm
