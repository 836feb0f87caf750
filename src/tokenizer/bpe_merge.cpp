#include "tokenizer/bpe_merge.h"

#include <algorithm>
#include <queue>

namespace tinylm {

namespace {

constexpr size_t kLinearMax = 128;  // longest piece merged by linear scans

void merge_linear(const BpeVocab& v, std::string_view piece, uint32_t* tok, uint32_t* rank,
                  std::vector<int32_t>& out) {
  size_t m = piece.size();
  for (size_t i = 0; i < m; ++i) tok[i] = v.byte_id[static_cast<unsigned char>(piece[i])];
  for (size_t i = 0; i + 1 < m; ++i) rank[i] = v.pairs.find(tok[i], tok[i + 1]);
  rank[m - 1] = kAbsent;
  for (;;) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < m; ++i)
      if (rank[i] < rank[best]) best = i;
    if (m < 2 || rank[best] == kAbsent) break;
    tok[best] = rank[best];  // a token's rank is its id
    std::copy(tok + best + 2, tok + m, tok + best + 1);
    std::copy(rank + best + 2, rank + m, rank + best + 1);
    --m;
    if (best > 0) rank[best - 1] = v.pairs.find(tok[best - 1], tok[best]);
    rank[best] = best + 1 < m ? v.pairs.find(tok[best], tok[best + 1]) : kAbsent;
  }
  for (size_t i = 0; i < m; ++i) out.push_back(static_cast<int32_t>(tok[i]));
}

// Parts form a linked list over byte positions; the heap holds (rank, start, version) of
// candidate pairs and stale entries are skipped when popped.
void merge_heap(const BpeVocab& v, std::string_view piece, std::vector<int32_t>& out) {
  const size_t n = piece.size();
  constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<uint32_t> tok(n), next(n), prev(n), version(n, 0);
  std::vector<bool> alive(n, true);
  struct Entry {
    uint32_t rank, start, version;
    bool operator>(const Entry& o) const {
      return rank != o.rank ? rank > o.rank : start > o.start;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  for (size_t i = 0; i < n; ++i) {
    tok[i] = v.byte_id[static_cast<unsigned char>(piece[i])];
    next[i] = i + 1 < n ? static_cast<uint32_t>(i + 1) : kNone;
    prev[i] = i > 0 ? static_cast<uint32_t>(i - 1) : kNone;
  }
  const auto push_pair = [&](uint32_t i) {  // the pair starting at part i, if any
    if (i == kNone || next[i] == kNone) return;
    const uint32_t r = v.pairs.find(tok[i], tok[next[i]]);
    if (r != kAbsent) heap.push({r, i, version[i]});
  };
  for (uint32_t i = 0; i + 1 < n; ++i) push_pair(i);
  while (!heap.empty()) {
    const Entry e = heap.top();
    heap.pop();
    const uint32_t i = e.start;
    if (!alive[i] || e.version != version[i] || next[i] == kNone) continue;
    const uint32_t j = next[i];
    if (v.pairs.find(tok[i], tok[j]) != e.rank) continue;  // right part changed
    tok[i] = e.rank;
    alive[j] = false;
    next[i] = next[j];
    if (next[j] != kNone) prev[next[j]] = i;
    ++version[i];
    if (prev[i] != kNone) {
      ++version[prev[i]];
      push_pair(prev[i]);
    }
    push_pair(i);
  }
  for (uint32_t i = 0; i != kNone; i = next[i]) out.push_back(static_cast<int32_t>(tok[i]));
}

}  // namespace

void bpe_merge_piece_linear(const BpeVocab& v, std::string_view piece, std::vector<int32_t>& out) {
  if (piece.empty()) return;
  std::vector<uint32_t> tok(piece.size()), rank(piece.size());
  merge_linear(v, piece, tok.data(), rank.data(), out);
}

void bpe_merge_piece(const BpeVocab& v, std::string_view piece, std::vector<int32_t>& out) {
  if (piece.empty()) return;
  if (piece.size() > kLinearMax) return merge_heap(v, piece, out);
  uint32_t tok[kLinearMax], rank[kLinearMax];
  merge_linear(v, piece, tok, rank, out);
}

}  // namespace tinylm
