#include "tokenizer/hf_json_bpe.h"

#include <algorithm>
#include <cstdio>

#include "tokenizer/bpe_vocab.h"
#include "tokenizer/hf_json_fields.h"
#include "tokenizer/piece_cache.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

constexpr size_t kMaxCachedWord = 256;

// The bytes a token spelled in GPT-2's byte alphabet stands for; false if it has a
// character outside the alphabet.
bool alphabet_to_bytes(std::string_view text, std::string& bytes) {
  bytes.clear();
  for (size_t pos = 0; pos < text.size();) {
    char32_t cp = 0;
    const int n = utf8_decode_one(text, pos, &cp);
    if (n == 0) return false;
    const int b = unicode_to_byte(cp);
    if (b < 0) return false;
    bytes.push_back(static_cast<char>(b));
    pos += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

HfBpeModel::HfBpeModel(const nlohmann::json& j, bool byte_level, const std::string& where)
    : byte_level_(byte_level), cache_owner_(next_piece_cache_owner()) {
  const std::string type = j.is_object() && j.contains("type") && j["type"].is_string()
                               ? j["type"].get<std::string>()
                               : "";
  require(type == "BPE", [&] {
    return where + ": unsupported model type \"" + type + "\" (tinylm reads BPE models)";
  });
  require(!j.contains("dropout") || j["dropout"].is_null(),
          where + ": BPE dropout is not supported");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    require(!j.contains(key) || j[key].is_null() || j[key] == "",
            [&] { return where + ": \"" + std::string(key) + "\" is not supported"; });
  }
  byte_fallback_ = hf_json::bool_field(j, "byte_fallback", false, where);
  ignore_merges_ = hf_json::bool_field(j, "ignore_merges", false, where);
  fuse_unk_ = hf_json::bool_field(j, "fuse_unk", false, where);
  read_vocab(hf_json::field(j, "vocab", where), where);
  read_merges(hf_json::field(j, "merges", where), where);
  if (j.contains("unk_token") && !j["unk_token"].is_null()) {
    const std::string unk = hf_json::string_field(j, "unk_token", where);
    unk_id_ = id_of(unk);
    require(unk_id_ >= 0, where + ": unk_token \"" + unk + "\" is not in the vocabulary");
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_fallback_id_[b] = id_of(name);
  }
}

void HfBpeModel::read_vocab(const nlohmann::json& vocab, const std::string& where) {
  require(vocab.is_object(), where + ": \"vocab\" must be an object {token: id}");
  int64_t max_id = -1;
  for (const auto& [text, id] : vocab.items()) {
    require(id.is_number_integer() && id.get<int64_t>() >= 0 && id.get<int64_t>() < INT32_MAX, [&] {
      return where + ": vocab id of \"" + text + "\" must be a non-negative integer";
    });
    max_id = std::max(max_id, id.get<int64_t>());
  }
  token_text_.assign(static_cast<size_t>(max_id + 1), "");
  std::vector<bool> seen(token_text_.size(), false);
  by_text_ = BytesMap(vocab.size());
  by_symbols_ = BytesMap(vocab.size());
  std::string bytes;
  for (const auto& [text, id_json] : vocab.items()) {
    const auto id = static_cast<int32_t>(id_json.get<int64_t>());
    require(!seen[id], [&] {
      return where + ": duplicate id " + std::to_string(id) + " (\"" + token_text_[id] +
             "\" and \"" + text + "\")";
    });
    seen[id] = true;
    token_text_[id] = text;
    by_text_.insert(text, static_cast<uint32_t>(id));
    if (!byte_level_) {
      by_symbols_.insert(text, static_cast<uint32_t>(id));
    } else if (alphabet_to_bytes(text, bytes)) {
      by_symbols_.insert(bytes, static_cast<uint32_t>(id));
    }
  }
}

void HfBpeModel::read_merges(const nlohmann::json& merges, const std::string& where) {
  require(merges.is_array(), where + ": \"merges\" must be a list");
  merge_result_.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const nlohmann::json& m = merges[i];
    std::string left, right;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ');
      require(space != std::string::npos && s.find(' ', space + 1) == std::string::npos, [&] {
        return where + ": merge " + std::to_string(i) + " \"" + s + "\" is not \"left right\"";
      });
      left = s.substr(0, space), right = s.substr(space + 1);
    } else {
      require(m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string(), [&] {
        return where + ": merge " + std::to_string(i) + " must be \"a b\" or [\"a\", \"b\"]";
      });
      left = m[0].get<std::string>(), right = m[1].get<std::string>();
    }
    const int32_t a = id_of(left), b = id_of(right), merged = id_of(left + right);
    require(a >= 0 && b >= 0 && merged >= 0, [&] {
      const std::string& missing = a < 0 ? left : b < 0 ? right : left + right;
      return where + ": merge " + std::to_string(i) + " (\"" + left + "\", \"" + right +
             "\") names \"" + missing + "\", which is not in the vocabulary";
    });
    pair_rank_.insert_min(static_cast<uint32_t>(a), static_cast<uint32_t>(b),
                          static_cast<uint32_t>(i));
    merge_result_.push_back(merged);
  }
}

int32_t HfBpeModel::id_of(std::string_view text) const {
  const uint32_t id = by_text_.find(text);
  return id == kAbsent ? -1 : static_cast<int32_t>(id);
}

void HfBpeModel::add_unknown(std::string_view symbol, std::vector<int32_t>& out) const {
  if (byte_fallback_) {
    bool all = true;
    for (const char c : symbol) all &= byte_fallback_id_[static_cast<unsigned char>(c)] >= 0;
    if (all) {
      for (const char c : symbol) out.push_back(byte_fallback_id_[static_cast<unsigned char>(c)]);
      return;
    }
  }
  require(unk_id_ >= 0, [&] {
    return "text: \"" + std::string(symbol) +
           "\" is not in the vocabulary, which has no unk_token or byte fallback for it";
  });
  if (fuse_unk_ && !out.empty() && out.back() == unk_id_) return;
  out.push_back(unk_id_);
}

// The word cache first (the hot, small table), then the whole word as a token
// (ignore_merges), then merging.
void HfBpeModel::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  if (word.empty()) return;
  const auto whole_or_merged = [&] {
    const uint32_t whole = ignore_merges_ ? by_symbols_.find(word) : kAbsent;
    if (whole != kAbsent) {
      out.push_back(static_cast<int32_t>(whole));
    } else {
      merge_symbols(word, out);
    }
  };
  if (word.size() > kMaxCachedWord) return whole_or_merged();
  PieceCache& cache = thread_piece_cache(cache_owner_);
  const uint32_t at = cache.index.find(word);
  if (at != kAbsent) {
    const int32_t* p = cache.ids.data() + at;
    out.insert(out.end(), p + 1, p + 1 + *p);
    return;
  }
  const size_t before = out.size();
  whole_or_merged();
  cache.store(word, out.data() + before, out.size() - before);
}

}  // namespace tinylm
