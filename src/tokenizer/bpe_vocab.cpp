#include "tokenizer/bpe_vocab.h"

#include <nlohmann/json.hpp>

#include "util/json_read.h"

#include "util/error.h"
#include "util/files.h"
#include "util/utf8.h"

namespace tinylm {

const std::array<char32_t, 256>& byte_to_unicode() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;  // bytes that are not printable get U+0100, U+0101, ...
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      t[b] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

int unicode_to_byte(char32_t cp) {
  static const std::vector<int> inverse = [] {
    std::vector<int> inv(324, -1);
    for (int b = 0; b < 256; ++b) inv[byte_to_unicode()[b]] = b;
    return inv;
  }();
  return cp < inverse.size() ? inverse[cp] : -1;
}

std::string bytes_to_token_text(std::string_view bytes) {
  std::string out;
  for (unsigned char b : bytes) utf8_append(out, byte_to_unicode()[b]);
  return out;
}

namespace {

// Token text in the alphabet -> bytes; empty optional-like result signalled by ok=false.
bool token_text_to_bytes(std::string_view text, std::string* out) {
  out->clear();
  char32_t cp;
  for (size_t pos = 0; pos < text.size();) {
    const int len = utf8_decode_one(text, pos, &cp);
    if (len == 0) return false;
    const int b = unicode_to_byte(cp);
    if (b < 0) return false;
    out->push_back(static_cast<char>(b));
    pos += len;
  }
  return !out->empty();
}

// Reads encoder.json into id -> token bytes (ids must be exactly 0..N-1).
std::vector<std::string> parse_encoder(std::string_view text, const std::string& name) {
  const nlohmann::json json = parse_json(text, name);  // a token named twice is an error
  require(json.is_object(), name + ": expected a JSON object {\"token\": id, ...}");
  require(json.size() >= 256, name + ": has " + std::to_string(json.size()) +
                                  " entries; a byte-level vocabulary has at least 256");
  std::vector<std::string> tokens(json.size());
  std::vector<bool> seen(json.size(), false);
  std::string bytes;
  for (const auto& [key, value] : json.items()) {
    const std::string where = name + ": entry \"" + key + "\"";
    require(value.is_number_integer(), where + ": the id must be an integer");
    const int64_t id = value.get<int64_t>();
    require(id >= 0 && id < static_cast<int64_t>(json.size()),
            where + ": id " + std::to_string(id) + " is outside 0.." +
                std::to_string(json.size() - 1) + " (ids must be 0..N-1)");
    require(!seen[id], where + ": id " + std::to_string(id) + " is used twice");
    require(token_text_to_bytes(key, &bytes),
            where + ": not a token in GPT-2's byte-to-unicode alphabet");
    seen[id] = true;
    tokens[id] = bytes;
  }
  return tokens;
}

}  // namespace

BpeVocab parse_bpe_vocab(std::string_view encoder_json, std::string_view merges_text,
                         const std::string& encoder_name, const std::string& merges_name) {
  const std::vector<std::string> tokens = parse_encoder(encoder_json, encoder_name);
  BpeVocab v;
  v.mergeable = BytesMap(tokens.size());
  v.token_offset.reserve(tokens.size() + 1);
  for (const auto& t : tokens) {
    v.token_offset.push_back(static_cast<uint32_t>(v.token_bytes.size()));
    v.token_bytes += t;
  }
  v.token_offset.push_back(static_cast<uint32_t>(v.token_bytes.size()));

  // The 256 single bytes: ids 0..255.
  v.byte_id.fill(kAbsent);
  for (uint32_t id = 0; id < 256; ++id) {
    const std::string& t = tokens[id];
    require(t.size() == 1, encoder_name + ": id " + std::to_string(id) + " (\"" +
                               bytes_to_token_text(t) +
                               "\") should be a single byte: ids 0..255 are the 256 bytes");
    const auto b = static_cast<unsigned char>(t[0]);
    require(v.byte_id[b] == kAbsent,
            encoder_name + ": byte " + std::to_string(b) + " appears twice among ids 0..255");
    v.byte_id[b] = id;
    v.mergeable.insert(t, id);
  }

  // vocab.bpe: merge i (line i+2) produces id 256+i.
  size_t pos = 0, line_no = 0;
  std::string left, right;
  while (pos < merges_text.size()) {
    size_t eol = merges_text.find('\n', pos);
    if (eol == std::string_view::npos) eol = merges_text.size();
    std::string_view line = merges_text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = merges_name + ":" + std::to_string(line_no);
    if (line_no == 1 && line.starts_with("#version")) continue;
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    require(space != std::string_view::npos && space > 0 && space + 1 < line.size() &&
                line.find(' ', space + 1) == std::string_view::npos,
            where + ": expected two tokens separated by one space");
    require(token_text_to_bytes(line.substr(0, space), &left) &&
                token_text_to_bytes(line.substr(space + 1), &right),
            where + ": not tokens in GPT-2's byte-to-unicode alphabet");
    const uint32_t a = v.mergeable.find(left), b = v.mergeable.find(right);
    require(a != kAbsent && b != kAbsent, where + ": a part of this merge is not an earlier token");
    const uint32_t id = 256 + static_cast<uint32_t>(v.n_merges);
    require(id < tokens.size() && tokens[id] == left + right,
            where + ": merge " + std::to_string(v.n_merges) + " must produce id " +
                std::to_string(id) + " in " + encoder_name);
    require(v.mergeable.insert(tokens[id], id), where + ": this merge repeats an earlier one");
    v.merges.emplace_back(a, b);
    ++v.n_merges;
  }
  // Every further id is a special token (matched as literal text, never merged).
  for (size_t id = 256 + v.n_merges; id < tokens.size(); ++id)
    v.specials.emplace_back(tokens[id], static_cast<int32_t>(id));

  // All splits of every token into two tokens (tiktoken ranks concatenations, so a token
  // may be reached from any such pair, not only from the merge that created it).
  for (uint32_t id = 256; id < 256 + static_cast<uint32_t>(v.n_merges); ++id) {
    const std::string_view t = v.bytes_of(static_cast<int32_t>(id));
    for (size_t k = 1; k < t.size(); ++k) {
      const uint32_t a = v.mergeable.find(t.substr(0, k));
      if (a == kAbsent) continue;
      const uint32_t b = v.mergeable.find(t.substr(k));
      if (b != kAbsent) v.pairs.insert_min(a, b, id);
    }
  }
  return v;
}

BpeVocab load_bpe_vocab(const std::string& dir) {
  const std::string enc = dir + "/encoder.json", merges = dir + "/vocab.bpe";
  return parse_bpe_vocab(read_file(enc), read_file(merges), enc, merges);
}

}  // namespace tinylm
