// HfBpeModel::merge_symbols: the merging loop of a BPE word (hf_json_bpe.h), with a heap
// of candidate pairs so that the cost stays n log n even for long words (a whole Llama 2
// text is one word). Symbols that are no token carry kHfUnknownBit and their offset.
#include <algorithm>
#include <queue>

#include "tokenizer/hf_json_bpe.h"

namespace tinylm {

namespace {

constexpr uint32_t kHfUnknownBit = 0x80000000u;

struct HfCandidate {
  uint32_t rank, start, version;
  bool operator>(const HfCandidate& o) const {
    return rank != o.rank ? rank > o.rank : start > o.start;
  }
};

}  // namespace

void HfBpeModel::merge_symbols(std::string_view word, std::vector<int32_t>& out) const {
  // Symbols: (id or kHfUnknownBit | byte offset, byte length).
  std::vector<uint32_t> tok, len;
  tok.reserve(word.size());
  len.reserve(word.size());
  for (size_t pos = 0; pos < word.size();) {
    const auto lead = static_cast<unsigned char>(word[pos]);
    size_t n = 1;
    if (!byte_level_) n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    n = std::min(n, word.size() - pos);
    const uint32_t id = by_symbols_.find(word.substr(pos, n));
    tok.push_back(id == kAbsent ? kHfUnknownBit | static_cast<uint32_t>(pos) : id);
    len.push_back(static_cast<uint32_t>(n));
    pos += n;
  }
  const size_t n = tok.size();
  const auto rank_of = [&](uint32_t a, uint32_t b) {
    return (a | b) & kHfUnknownBit ? kAbsent : pair_rank_.find(a, b);
  };
  std::vector<uint32_t> next(n), prev(n), version(n, 0);
  for (size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? static_cast<uint32_t>(i + 1) : kAbsent;
    prev[i] = i > 0 ? static_cast<uint32_t>(i - 1) : kAbsent;
  }
  std::vector<bool> alive(n, true);
  std::priority_queue<HfCandidate, std::vector<HfCandidate>, std::greater<HfCandidate>> heap;
  const auto push_pair = [&](uint32_t i) {
    if (i == kAbsent || next[i] == kAbsent) return;
    const uint32_t r = rank_of(tok[i], tok[next[i]]);
    if (r != kAbsent) heap.push({r, i, version[i]});
  };
  for (uint32_t i = 0; i + 1 < n; ++i) push_pair(i);
  while (!heap.empty()) {
    const HfCandidate c = heap.top();
    heap.pop();
    const uint32_t i = c.start;
    if (!alive[i] || c.version != version[i] || next[i] == kAbsent) continue;
    const uint32_t j = next[i];
    if (rank_of(tok[i], tok[j]) != c.rank) continue;  // the right part changed
    tok[i] = static_cast<uint32_t>(merge_result_[c.rank]);
    len[i] += len[j];
    alive[j] = false;
    next[i] = next[j];
    if (next[j] != kAbsent) prev[next[j]] = i;
    ++version[i];
    if (prev[i] != kAbsent) {
      ++version[prev[i]];
      push_pair(prev[i]);
    }
    push_pair(i);
  }
  for (uint32_t i = 0; i != kAbsent && n > 0; i = next[i]) {
    if (tok[i] & kHfUnknownBit) {
      add_unknown(word.substr(tok[i] & ~kHfUnknownBit, len[i]), out);
    } else {
      out.push_back(static_cast<int32_t>(tok[i]));
    }
  }
}

}  // namespace tinylm
