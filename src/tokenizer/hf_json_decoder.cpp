#include "tokenizer/hf_json_decoder.h"

#include "tokenizer/bpe_vocab.h"
#include "tokenizer/hf_json_fields.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// GPT-2's byte alphabet back to bytes; a character outside it becomes byte 0, as
// transformers.js's Uint8Array makes of its undefined.
std::string alphabet_bytes(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t pos = 0; pos < token.size();) {
    char32_t cp = 0;
    const int n = utf8_decode_one(token, pos, &cp);
    const int b = n > 0 ? unicode_to_byte(cp) : -1;
    out.push_back(static_cast<char>(b < 0 ? 0 : b));
    pos += static_cast<size_t>(n > 0 ? n : 1);
  }
  return out;
}

// Cuts up to `count` copies of content from the start (or the end) of s.
void strip(std::string& s, const std::string& content, int count, bool at_start) {
  for (int i = 0; i < count && !content.empty(); ++i) {
    if (at_start && s.compare(0, content.size(), content) == 0) {
      s.erase(0, content.size());
    } else if (!at_start && s.size() >= content.size() &&
               s.compare(s.size() - content.size(), content.size(), content) == 0) {
      s.resize(s.size() - content.size());
    } else {
      break;
    }
  }
}

}  // namespace

HfDecoder::HfDecoder(const nlohmann::json& j, const std::string& where) {
  if (j.is_null()) return;
  none_ = false;
  add(j, where);
}

void HfDecoder::add(const nlohmann::json& j, const std::string& where) {
  const std::string type = hf_json::type_of(j, where);
  Step s{};
  if (type == "Sequence") {
    const nlohmann::json& list = hf_json::field(j, "decoders", where);
    require(list.is_array(), where + ": \"decoders\" must be a list");
    for (const auto& item : list) add(item, where);
    return;
  }
  if (type == "ByteLevel") {
    s.kind = Step::kByteLevel;
    joined_ = true;
  } else if (type == "Replace" || type == "ByteFallback") {
    require(!joined_, where + ": " + type + " after Fuse or ByteLevel is not supported");
    s.kind = type == "Replace" ? Step::kReplace : Step::kByteFallback;
    if (type == "Replace") {
      const auto [pattern, is_regex] = hf_json::pattern_field(j, where + " Replace");
      require(!is_regex, where + " Replace: only String patterns are supported");
      s.pattern = pattern;
      s.content = hf_json::string_field(j, "content", where + " Replace");
    }
  } else if (type == "Fuse") {
    s.kind = Step::kFuse;
    joined_ = true;
  } else if (type == "Strip") {
    s.kind = Step::kStrip;
    s.content = hf_json::string_field(j, "content", where + " Strip");
    for (auto [key, value] : {std::pair{"start", &s.start}, std::pair{"stop", &s.stop}}) {
      const nlohmann::json& v = hf_json::field(j, key, where + " Strip");
      require(v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < 1 << 20,
              where + " Strip: \"" + std::string(key) + "\" must be a small count");
      *value = static_cast<int>(v.get<int64_t>());
    }
    s.after_join = joined_;
  } else {
    throw InputError(where + ": unsupported decoder type \"" + type +
                     "\" (tinylm reads ByteLevel, Replace, ByteFallback, Fuse, Strip and "
                     "Sequence)");
  }
  steps_.push_back(std::move(s));
}

std::string HfDecoder::piece(std::string_view token, bool added, bool first) const {
  if (none_) return first ? std::string(token) : " " + std::string(token);
  std::string s(token);
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Step::kByteLevel:
        if (!added) s = alphabet_bytes(s);
        break;
      case Step::kReplace:
        s = hf_json::replace_all(s, step.pattern, step.content);
        break;
      case Step::kByteFallback:
        if (s.size() == 6 && s.compare(0, 3, "<0x") == 0 && s[5] == '>' && hex_digit(s[3]) >= 0 &&
            hex_digit(s[4]) >= 0)
          s = std::string(1, static_cast<char>(hex_digit(s[3]) * 16 + hex_digit(s[4])));
        break;
      case Step::kFuse:
        break;
      case Step::kStrip:
        if (!step.after_join) {
          strip(s, step.content, step.start, true);
          strip(s, step.content, step.stop, false);
        } else if (first) {
          strip(s, step.content, step.start, true);
        }
        break;
    }
  }
  return s;
}

void HfDecoder::finish(std::string& bytes) const {
  for (const Step& step : steps_)
    if (step.kind == Step::kStrip && step.after_join) strip(bytes, step.content, step.stop, false);
}

}  // namespace tinylm
