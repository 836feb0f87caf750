#include "tokenizer/addition_tokenizer.h"

#include <nlohmann/json.hpp>

#include "tokenizer/char_tokenizer.h"
#include "util/error.h"
#include "util/utf8.h"

namespace tinylm {

AdditionTokenizer AdditionTokenizer::from_json(const nlohmann::json& j) {
  require(j.is_object() && j.contains("kind") && j["kind"] == "addition",
          "addition tokenizer JSON: expected {\"kind\": \"addition\"}");
  return {};
}

nlohmann::json AdditionTokenizer::to_json() const { return {{"kind", "addition"}}; }

std::vector<int32_t> AdditionTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const char c = text[pos];
    if (c >= '0' && c <= '9') {
      ids.push_back(c - '0');
      pos += 1;
    } else if (c == '+' || c == '=') {
      ids.push_back(c == '+' ? kPlus : kEquals);
      pos += 1;
    } else if (text.substr(pos, 5) == "<PAD>" || text.substr(pos, 5) == "<EOS>") {
      ids.push_back(text.substr(pos, 5) == "<PAD>" ? kPad : kEos);
      pos += 5;
    } else {
      char32_t cp;
      const int len = utf8_decode_one(text, pos, &cp);
      if (len == 0) {
        throw InputError("addition tokenizer: invalid UTF-8 at byte " + std::to_string(pos));
      }
      throw InputError("addition tokenizer: character " + describe_char(cp) + " at byte " +
                       std::to_string(pos) + " is not in the vocabulary (0-9, +, =, <PAD>, <EOS>)");
    }
  }
  return ids;
}

std::string AdditionTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  for (int32_t id : ids) {
    require(id >= 0 && id < kVocabSize,
            "addition tokenizer: id " + std::to_string(id) + " is outside the vocabulary [0, 14)");
    if (id <= 9) {
      out += static_cast<char>('0' + id);
    } else if (id == kPlus) {
      out += '+';
    } else if (id == kEquals) {
      out += '=';
    } else {
      out += id == kPad ? "<PAD>" : "<EOS>";
    }
  }
  return out;
}

}  // namespace tinylm
