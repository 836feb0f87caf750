// The ids of pieces (pre-tokenised words) a BPE tokenizer has encoded, per thread, so that
// a word met again costs one lookup: piece bytes -> offset in ids, where ids[offset] is
// the count and the ids follow. Cleared when it grows past its limits or when another
// tokenizer uses the thread (each tokenizer object owns an id from next_piece_cache_owner).
// GPT-2's BPE (bpe_tokenizer.cpp) and tokenizer.json's (hf_json_bpe.cpp) both use it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_bytes_map.h"

namespace tinylm {

struct PieceCache {
  static constexpr size_t kMaxEntries = 1 << 18, kMaxIds = 1 << 22;
  uint64_t owner = 0;
  BytesMap index{1 << 12};
  std::vector<int32_t> ids;

  void reset(uint64_t new_owner) {
    owner = new_owner;
    index.clear();
    ids.clear();
  }
  void store(std::string_view piece, const int32_t* first, size_t count) {
    if (index.size() >= kMaxEntries || ids.size() + count + 1 > kMaxIds) reset(owner);
    index.insert(piece, static_cast<uint32_t>(ids.size()));
    ids.push_back(static_cast<int32_t>(count));
    ids.insert(ids.end(), first, first + count);
  }
};

// This thread's cache, emptied first when `owner` did not use it last.
PieceCache& thread_piece_cache(uint64_t owner);
// A new owner id, unique in the process.
uint64_t next_piece_cache_owner();

}  // namespace tinylm
