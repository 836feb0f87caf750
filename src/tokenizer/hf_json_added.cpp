#include "tokenizer/hf_json_added.h"

#include <algorithm>

#include "tokenizer/hf_json_fields.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

bool is_js_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000 || c == 0xFEFF;
}

// Whether the character ending just before pos / starting at pos is a word character
// (letter, digit or _; ASCII, as JavaScript's \w).
bool word_char_at(std::string_view text, size_t pos) {
  if (pos >= text.size()) return false;
  const char c = text[pos];
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Length of the whitespace at the end of text[begin, end).
size_t trailing_space(std::string_view text, size_t begin, size_t end) {
  size_t cut = begin;  // just past the last character that is not whitespace
  for (size_t pos = begin; pos < end;) {
    const size_t n = js_space_length(text, pos);
    if (n) {
      pos += n;
      continue;
    }
    char32_t cp;
    pos += static_cast<size_t>(std::max(1, utf8_decode_one(text, pos, &cp)));
    cut = pos;
  }
  return end - cut;
}

}  // namespace

size_t js_space_length(std::string_view text, size_t pos) {
  char32_t cp = 0;
  const int n = utf8_decode_one(text, pos, &cp);
  return n > 0 && is_js_space(cp) ? static_cast<size_t>(n) : 0;
}

HfAddedTokens::HfAddedTokens(const nlohmann::json& j, const std::string& where) {
  ends_.push_back(-1);
  if (j.is_null()) return;
  require(j.is_array(), where + ": expected a list");
  for (const auto& item : j) {
    HfAddedToken t;
    t.content = hf_json::string_field(item, "content", where);
    const nlohmann::json& id = hf_json::field(item, "id", where);
    require(id.is_number_integer() && id.get<int64_t>() >= 0 && id.get<int64_t>() < INT32_MAX,
            where + ": the id of \"" + t.content + "\" must be a non-negative integer");
    require(!t.content.empty(), where + ": an added token has empty content");
    t.id = static_cast<int32_t>(id.get<int64_t>());
    t.special = hf_json::bool_field(item, "special", false, where);
    t.lstrip = hf_json::bool_field(item, "lstrip", false, where);
    t.rstrip = hf_json::bool_field(item, "rstrip", false, where);
    t.single_word = hf_json::bool_field(item, "single_word", false, where);
    t.normalized = hf_json::bool_field(item, "normalized", false, where);
    starts_[static_cast<unsigned char>(t.content[0])] = true;
    uint32_t node = 0;
    for (const char c : t.content) {
      uint32_t child = children_.find(node, static_cast<unsigned char>(c));
      if (child == kAbsent) {
        child = static_cast<uint32_t>(ends_.size());
        ends_.push_back(-1);
        children_.insert_min(node, static_cast<unsigned char>(c), child);
      }
      node = child;
    }
    // A content listed twice: the later entry wins, as in transformers.js's maps.
    ends_[node] = static_cast<int32_t>(tokens_.size());
    tokens_.push_back(std::move(t));
  }
}

int32_t HfAddedTokens::match_at(std::string_view text, size_t pos, size_t* length) const {
  int32_t best = -1;
  uint32_t node = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    node = children_.find(node, static_cast<unsigned char>(text[i]));
    if (node == kAbsent) break;
    if (ends_[node] < 0) continue;
    const HfAddedToken& t = tokens_[ends_[node]];
    if (t.single_word && ((pos > 0 && word_char_at(text, pos - 1)) || word_char_at(text, i + 1)))
      continue;
    best = ends_[node];
    *length = i + 1 - pos;
  }
  return best;
}

std::vector<HfSection> HfAddedTokens::split(std::string_view text) const {
  std::vector<HfSection> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    size_t length = 0;
    const int32_t token =
        starts_[static_cast<unsigned char>(text[i])] ? match_at(text, i, &length) : -1;
    if (token < 0) {
      ++i;
      continue;
    }
    if (i > start) out.push_back({start, i, -1});
    out.push_back({i, i + length, token});
    i += length;
    start = i;
  }
  if (start < text.size()) out.push_back({start, text.size(), -1});
  // lstrip / rstrip: trim the whitespace of the plain neighbours.
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k].token < 0) continue;
    const HfAddedToken& t = tokens_[out[k].token];
    if (t.lstrip && k > 0 && out[k - 1].token < 0)
      out[k - 1].end -= trailing_space(text, out[k - 1].begin, out[k - 1].end);
    if (t.rstrip && k + 1 < out.size() && out[k + 1].token < 0)
      while (out[k + 1].begin < out[k + 1].end) {
        const size_t n = js_space_length(text, out[k + 1].begin);
        if (!n) break;
        out[k + 1].begin += n;
      }
  }
  return out;
}

}  // namespace tinylm
