// The BPE model of a tokenizer.json file ("model": {"type": "BPE", ...}):
//   vocab          {"token": id}; ids need not be dense, but no id twice
//   merges         ["a b", ...] or [["a", "b"], ...]; merge i has rank i; both parts and
//                  their concatenation must be tokens (else InputError naming the merge)
//   byte_fallback  a symbol that is no token becomes its UTF-8 bytes as <0xNN> tokens
//   unk_token      what a symbol becomes otherwise (fuse_unk: runs of them fuse)
//   ignore_merges  a word that is a token is that token, unmerged
// A word is encoded from its symbols (characters; bytes when the pre-tokenizer is
// ByteLevel, with the vocabulary spelled back from GPT-2's byte alphabet) by merging, again
// and again, the adjacent pair of lowest rank (leftmost on ties), as Hugging Face's
// tokenizers and transformers.js do. Results of short words are cached per thread.
// dropout, continuing_subword_prefix and end_of_word_suffix (other than null or "") are
// refused.
#pragma once
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_bytes_map.h"

namespace tinylm {

class HfBpeModel {
 public:
  // j: the "model" value; byte_level: symbols are bytes; where: "<file>: model".
  HfBpeModel(const nlohmann::json& j, bool byte_level, const std::string& where);

  // Appends the ids of one word (bytes of its text, valid UTF-8 unless byte_level).
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;

  // The vocabulary's size: one past the largest id.
  int32_t size() const { return static_cast<int32_t>(token_text_.size()); }
  // The token's text as the vocabulary spells it ("" for an id it lacks).
  const std::string& token_text(int32_t id) const { return token_text_[id]; }
  // The id of a token by its vocabulary spelling, or -1.
  int32_t id_of(std::string_view text) const;
  bool byte_level() const { return byte_level_; }

 private:
  void read_vocab(const nlohmann::json& vocab, const std::string& where);
  void read_merges(const nlohmann::json& merges, const std::string& where);
  void merge_symbols(std::string_view word, std::vector<int32_t>& out) const;
  void add_unknown(std::string_view symbol, std::vector<int32_t>& out) const;

  std::vector<std::string> token_text_;  // by id
  BytesMap by_text_{1};                  // vocabulary spelling -> id
  BytesMap by_symbols_{1};               // the token's symbols (bytes when byte_level) -> id
  PairMap pair_rank_;                    // (left id, right id) -> merge rank
  std::vector<int32_t> merge_result_;    // rank -> id of the merged token
  std::array<int32_t, 256> byte_fallback_id_{};  // <0xNN> ids, -1 when missing
  int32_t unk_id_ = -1;
  bool byte_level_ = false, byte_fallback_ = false, ignore_merges_ = false, fuse_unk_ = false;
  uint64_t cache_owner_;
};

}  // namespace tinylm
