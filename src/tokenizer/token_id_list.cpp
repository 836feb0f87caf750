#include "tokenizer/token_id_list.h"

#include <cctype>
#include <cstdint>
#include <optional>

#include "util/error.h"
#include "util/integer_text.h"

namespace tinylm {

namespace {

bool is_separator(char c) {
  return c == ',' || c == '[' || c == ']' || std::isspace(static_cast<unsigned char>(c));
}

}  // namespace

std::vector<int32_t> parse_token_ids(std::string_view text, const std::string& what) {
  std::vector<int32_t> ids;
  size_t i = 0;
  while (i < text.size()) {
    if (is_separator(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !is_separator(text[end])) ++end;
    const std::string_view item = text.substr(i, end - i);
    const std::optional<uint64_t> id = decimal_unsigned(item);
    require(id && *id <= INT32_MAX, what + ": '" + std::string(item) + "' is not a token id");
    ids.push_back(static_cast<int32_t>(*id));
    i = end;
  }
  return ids;
}

}  // namespace tinylm
