#include "tokenizer/char_tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "util/error.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

// Characters shown only by code in messages: C0/C1 controls, DEL, and spaces other than
// U+0020 itself (which would be invisible or confusing between quotes).
bool is_unprintable(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0x2028 || c == 0x2029 || c == 0xFEFF ||
         (c >= 0x200B && c <= 0x200F);
}

}  // namespace

std::string describe_char(char32_t c) {
  char code[16];
  std::snprintf(code, sizeof(code), "U+%04X", static_cast<unsigned>(c));
  if (is_unprintable(c)) return code;
  std::string out = "'";
  utf8_append(out, c);
  return out + "' (" + code + ")";
}

CharTokenizer::CharTokenizer(std::vector<char32_t> chars) : chars_(std::move(chars)) {
  require(!chars_.empty(), "char tokenizer: the vocabulary is empty");
  std::fill(std::begin(ascii_ids_), std::end(ascii_ids_), -1);
  for (size_t i = 0; i < chars_.size(); ++i) {
    const char32_t c = chars_[i];
    require(c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF),
            "char tokenizer: " + describe_char(c) + " is not a Unicode scalar value");
    require(id_of(c) < 0,
            "char tokenizer: " + describe_char(c) + " appears twice in the vocabulary");
    if (c < 128) {
      ascii_ids_[c] = static_cast<int32_t>(i);
    } else {
      other_ids_.emplace(c, static_cast<int32_t>(i));
    }
  }
}

CharTokenizer CharTokenizer::from_corpus(std::string_view text) {
  require(!text.empty(), "char tokenizer: cannot build a vocabulary from empty text");
  const std::vector<char32_t> cps = utf8_decode(text, "char tokenizer corpus");
  std::set<char32_t> unique(cps.begin(), cps.end());
  return CharTokenizer(std::vector<char32_t>(unique.begin(), unique.end()));
}

int32_t CharTokenizer::id_of(char32_t c) const {
  if (c < 128) return ascii_ids_[c];
  auto it = other_ids_.find(c);
  return it == other_ids_.end() ? -1 : it->second;
}

std::vector<int32_t> CharTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  char32_t c;
  for (size_t pos = 0; pos < text.size();) {
    const int len = utf8_decode_one(text, pos, &c);
    if (len == 0) throw InputError("char tokenizer: invalid UTF-8 at byte " + std::to_string(pos));
    const int32_t id = id_of(c);
    if (id < 0) {
      throw InputError("char tokenizer: character " + describe_char(c) + " at character " +
                       std::to_string(ids.size()) + " (byte " + std::to_string(pos) +
                       ") is not in the vocabulary");
    }
    ids.push_back(id);
    pos += len;
  }
  return ids;
}

std::string CharTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  out.reserve(ids.size());
  for (int32_t id : ids) {
    require(id >= 0 && id < vocab_size(), "char tokenizer: id " + std::to_string(id) +
                                              " is outside the vocabulary [0, " +
                                              std::to_string(vocab_size()) + ")");
    utf8_append(out, chars_[id]);
  }
  return out;
}

nlohmann::json CharTokenizer::to_json() const {
  nlohmann::json chars = nlohmann::json::array();
  for (char32_t c : chars_) {
    std::string s;
    utf8_append(s, c);
    chars.push_back(s);
  }
  return {{"kind", "char"}, {"chars", chars}};
}

CharTokenizer CharTokenizer::from_json(const nlohmann::json& j) {
  require(j.is_object() && j.contains("kind") && j["kind"] == "char",
          "char tokenizer JSON: expected an object with \"kind\": \"char\"");
  require(j.contains("chars"), "char tokenizer JSON: missing \"chars\"");
  const nlohmann::json& chars = j["chars"];
  std::vector<char32_t> cps;
  if (chars.is_string()) {
    cps = utf8_decode(chars.get_ref<const std::string&>(), "char tokenizer JSON \"chars\"");
  } else {
    require(chars.is_array(), "char tokenizer JSON: \"chars\" must be an array of strings");
    for (size_t i = 0; i < chars.size(); ++i) {
      const std::string where = "char tokenizer JSON: chars[" + std::to_string(i) + "]";
      require(chars[i].is_string(), where + " is not a string");
      const std::vector<char32_t> one = utf8_decode(chars[i].get_ref<const std::string&>(), where);
      require(one.size() == 1, where + " must be exactly one character");
      cps.push_back(one[0]);
    }
  }
  return CharTokenizer(std::move(cps));
}

}  // namespace tinylm
