#include "tokenizer/piece_cache.h"

#include <atomic>

namespace tinylm {

PieceCache& thread_piece_cache(uint64_t owner) {
  thread_local PieceCache cache;
  if (cache.owner != owner) cache.reset(owner);
  return cache;
}

uint64_t next_piece_cache_owner() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

}  // namespace tinylm
