// Integers that a user writes as text (command-line values, column indexes, numbers in
// checkpoint metadata), read without the surprises of std::stoll and strtoll: no
// exception that is not an InputError, no silent clamping at INT64_MAX, no wrap of "-1"
// to 2^64 - 1, no octal "010", no trailing garbage ("12abc").
#pragma once
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.h"

namespace tinylm {

// Plain decimal: an optional '-', then one or more digits, nothing else; nullopt for
// anything else and for a value outside int64.
inline std::optional<int64_t> decimal_integer(std::string_view text) {
  const size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == digits || text.find_first_not_of("0123456789", digits) != text.npos)
    return std::nullopt;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The same for uint64 (no sign at all).
inline std::optional<uint64_t> decimal_unsigned(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != text.npos) return std::nullopt;
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// decimal_integer within [lo, hi], or InputError naming what:
//   "<what>: '12abc' is not an integer"
//   "<what> must be in [0, 1000], got 99999999999999999999"
inline int64_t parse_integer(std::string_view text, int64_t lo, int64_t hi,
                             const std::string& what) {
  const bool digits = !text.empty() &&
                      text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == text.npos &&
                      text != "-";
  require(digits, what + ": '" + std::string(text) + "' is not an integer");
  const std::optional<int64_t> v = decimal_integer(text);
  require(v && *v >= lo && *v <= hi, what + " must be in [" + std::to_string(lo) + ", " +
                                         std::to_string(hi) + "], got " + std::string(text));
  return *v;
}

}  // namespace tinylm
