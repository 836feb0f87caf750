// Text as JavaScript sees it. @huggingface/jinja (the Jinja of transformers.js and the
// Hugging Face Hub) runs on JavaScript strings and numbers, and its output is what a chat
// template means for tinylm: whitespace is JavaScript's \s (Unicode spaces too), a
// string's length counts UTF-16 units, numbers print as Number.prototype.toString does,
// JSON strings escape as JSON.stringify does. Strings here are UTF-8.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace tinylm::jinja {

// True for the code points of JavaScript's \s and String.prototype.trim.
bool is_js_space(char32_t cp);

// String.prototype.trim / trimStart / trimEnd.
std::string js_trim(std::string_view s);
std::string js_trim_start(std::string_view s);
std::string js_trim_end(std::string_view s);

// toUpperCase / toLowerCase for ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic
// (the letters chat messages carry); other code points are left as they are.
std::string js_upper(std::string_view s);
std::string js_lower(std::string_view s);

// Python's str.title as @huggingface/jinja writes it: /\b\w/g upper-cased, where \w is
// ASCII [A-Za-z0-9_] (so "élan" becomes "éLan", as in JavaScript).
std::string js_title(std::string_view s);

// charAt(0).toUpperCase() + slice(1): the rest keeps its case (unlike Python's
// capitalize), and a first character outside the BMP stays as it is.
std::string js_capitalize(std::string_view s);

// The number of UTF-16 units (String.prototype.length).
int64_t js_length(std::string_view s);

// The UTF-16 unit at index i (negative counts from the end, as String.prototype.at);
// false when out of range. A lone surrogate comes out as U+FFFD, as Node writes it.
bool js_char_at(std::string_view s, int64_t i, std::string* out);

// Number.prototype.toString of a double ("1", "0.5", "1e-7", "1e+21", "NaN", "Infinity").
std::string js_number(double x);

// JSON.stringify of a string: quotes, \" \\ \b \f \n \r \t, other controls as \u00xx.
std::string js_json_quote(std::string_view s);

// parseInt(s, 10) and parseFloat(s); false for NaN.
bool js_parse_int(std::string_view s, double* out);
bool js_parse_float(std::string_view s, double* out);

}  // namespace tinylm::jinja
