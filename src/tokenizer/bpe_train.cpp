#include "tokenizer/bpe_train.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "tokenizer/bpe_bytes_map.h"
#include "tokenizer/bpe_pretokenize.h"
#include "tokenizer/bpe_vocab.h"
#include "util/error.h"
#include "util/files.h"
#include "util/parallel_errors.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";

using PieceCounts = std::unordered_map<std::string_view, int64_t>;

// Cuts text into chunks that pre-tokenise independently: "<|endoftext|>" is removed, and
// long runs are cut before a '\n' that follows an ASCII non-space byte (the piece before
// it ends there whatever comes next; the same rule as BpeTokenizer::encode_parallel).
std::vector<std::string_view> cut_chunks(std::string_view text, size_t target) {
  std::vector<std::string_view> chunks;
  const auto cut_lines = [&](std::string_view part) {
    size_t start = 0;
    for (size_t pos = target; pos < part.size();) {
      const size_t nl = part.find('\n', pos);
      if (nl == std::string_view::npos) break;
      const auto before = static_cast<unsigned char>(part[nl - 1]);
      if (before < 0x80 && before != ' ' && (before < '\t' || before > '\r')) {
        chunks.push_back(part.substr(start, nl - start));
        start = nl;
        pos = nl + target;
      } else {
        pos = nl + 1;
      }
    }
    if (start < part.size()) chunks.push_back(part.substr(start));
  };
  for (size_t pos = 0; pos <= text.size();) {
    size_t eot = text.find(kEndOfText, pos);
    if (eot == std::string_view::npos) eot = text.size();
    cut_lines(text.substr(pos, eot - pos));
    pos = eot + kEndOfText.size();
  }
  return chunks;
}

// Pieces of the corpus -> how often each occurs (views into the corpus).
PieceCounts count_pieces(std::string_view corpus, int threads, Pretokenizer pretokenizer,
                         int64_t* n_pieces) {
  const size_t target = std::max<size_t>(1 << 16, corpus.size() / (std::max(threads, 1) * 8));
  const std::vector<std::string_view> chunks = cut_chunks(corpus, target);
  const int n = static_cast<int>(chunks.size());
  std::vector<PieceCounts> partial(n);
  std::vector<int64_t> pieces(n, 0);
  ParallelErrors errors;  // nothing may throw out of the region (a map insert allocates)
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(threads, 1))
  for (int c = 0; c < n; ++c) {
    errors.run([&] {
      split_pieces(pretokenizer, chunks[c], [&](std::string_view piece) {
        ++partial[c][piece];
        ++pieces[c];
      });
    });
  }
  errors.rethrow();
  PieceCounts total;
  *n_pieces = 0;
  for (int c = 0; c < n; ++c) {
    *n_pieces += pieces[c];
    if (total.empty()) {
      total = std::move(partial[c]);
    } else {
      for (const auto& [piece, count] : partial[c]) total[piece] += count;
    }
  }
  return total;
}

uint64_t pack(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}
int32_t left_of(uint64_t p) {
  return static_cast<int32_t>(p >> 32);
}
int32_t right_of(uint64_t p) {
  return static_cast<int32_t>(p & 0xFFFFFFFFu);
}

// A heap entry: the pair's count when pushed. The top is the highest count, then the
// smallest (left, right) pair.
struct Candidate {
  int64_t count;
  uint64_t pair;
  bool operator<(const Candidate& o) const {
    return count != o.count ? count < o.count : pair > o.pair;
  }
};

class Trainer {
 public:
  Trainer(const PieceCounts& counts, int64_t n_merges, int64_t linear_max)
      : n_merges_(n_merges), linear_max_(linear_max) {
    // Tokens: the 256 bytes in GPT-2's id order.
    const auto& byte_ids = gpt2_byte_ids();
    tokens_.resize(256);
    for (int b = 0; b < 256; ++b) tokens_[byte_ids[b]] = std::string(1, static_cast<char>(b));
    for (int32_t id = 0; id < 256; ++id) token_ids_.insert(tokens_[id], id);
    token_lengths_.insert(1);

    // Words in a fixed order (the map's order depends on hashing and threads).
    std::vector<std::pair<std::string_view, int64_t>> sorted(counts.begin(), counts.end());
    std::sort(sorted.begin(), sorted.end());
    words_.reserve(sorted.size());
    freq_.reserve(sorted.size());
    for (const auto& [piece, count] : sorted) {
      std::vector<int32_t> ids(piece.size());
      for (size_t i = 0; i < piece.size(); ++i)
        ids[i] = byte_ids[static_cast<unsigned char>(piece[i])];
      words_.push_back(std::move(ids));
      freq_.push_back(count);
    }
    seen_.assign(words_.size(), -1);

    for (int32_t w = 0; w < static_cast<int32_t>(words_.size()); ++w) {
      const auto& t = words_[w];
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        const uint64_t p = pack(t[i], t[i + 1]);
        pair_count_[p] += freq_[w];
        auto& list = pair_words_[p];
        if (list.empty() || list.back() != w) list.push_back(w);
      }
    }
    for (const auto& [p, c] : pair_count_) heap_.push({c, p});
  }

  void run() {
    while (static_cast<int64_t>(merges_.size()) < n_merges_) {
      const uint64_t best = pop_best();
      if (best == kNone) break;  // every piece is a single token
      merge(left_of(best), right_of(best));
    }
  }

  std::vector<std::string> take_tokens() { return std::move(tokens_); }
  std::vector<std::pair<int32_t, int32_t>> take_merges() { return std::move(merges_); }

 private:
  static constexpr uint64_t kNone = ~uint64_t{0};

  // The most frequent pair (ties: smallest), skipping entries whose count is outdated.
  uint64_t pop_best() {
    while (!heap_.empty()) {
      const Candidate top = heap_.top();
      heap_.pop();
      const auto it = pair_count_.find(top.pair);
      if (it != pair_count_.end() && it->second == top.count) return top.pair;
    }
    return kNone;
  }

  // Id of the token with bytes tokens_[a] + tokens_[b], or kAbsent.
  uint32_t joined(int32_t a, int32_t b) {
    scratch_.assign(tokens_[a]);
    scratch_ += tokens_[b];
    return token_ids_.find(scratch_);
  }

  // tiktoken's rule on one word: merge the leftmost adjacent pair whose concatenation is
  // the lowest-ranked existing token, until no pair forms a token. Short words scan for
  // the best pair (as tiktoken does); long ones (a run of one letter, DNA, base64) use a
  // heap over a linked list, so a word of n tokens costs n log n lookups, not n^2.
  void segment(std::vector<int32_t>& t) {
    if (t.size() > static_cast<size_t>(linear_max_)) return segment_heap(t);
    for (;;) {
      uint32_t best = kAbsent;
      size_t at = 0;
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        const uint32_t id = joined(t[i], t[i + 1]);
        if (id < best) {
          best = id;
          at = i;
        }
      }
      if (best == kAbsent) return;
      t[at] = static_cast<int32_t>(best);
      t.erase(t.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    }
  }

  // The same rule with a min-heap of (rank, position, version) entries; an entry whose
  // left part was merged since (version changed) or whose right part changed is stale.
  void segment_heap(std::vector<int32_t>& t) {
    const auto n = static_cast<uint32_t>(t.size());
    constexpr uint32_t kNil = 0xFFFFFFFFu;
    std::vector<uint32_t> next(n), prev(n), version(n, 0);
    struct Entry {
      uint32_t rank, start, version;
      bool operator>(const Entry& o) const {
        return rank != o.rank ? rank > o.rank : start > o.start;
      }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (uint32_t i = 0; i < n; ++i) {
      next[i] = i + 1 < n ? i + 1 : kNil;
      prev[i] = i > 0 ? i - 1 : kNil;
    }
    const auto push_pair = [&](uint32_t i) {
      if (i == kNil || next[i] == kNil) return;
      const uint32_t r = joined(t[i], t[next[i]]);
      if (r != kAbsent) heap.push({r, i, version[i]});
    };
    for (uint32_t i = 0; i + 1 < n; ++i) push_pair(i);
    while (!heap.empty()) {
      const Entry e = heap.top();
      heap.pop();
      const uint32_t i = e.start;
      if (e.version != version[i] || next[i] == kNil) continue;
      const uint32_t j = next[i];
      if (joined(t[i], t[j]) != e.rank) continue;  // the right part changed
      t[i] = static_cast<int32_t>(e.rank);
      next[i] = next[j];
      if (next[j] != kNil) prev[next[j]] = i;
      version[j] = kNil;  // j is gone: its entries are stale
      ++version[i];
      if (prev[i] != kNil) {
        ++version[prev[i]];
        push_pair(prev[i]);
      }
      push_pair(i);
    }
    size_t out = 0;
    for (uint32_t i = 0; i != kNil; i = next[i]) t[out++] = t[i];
    t.resize(out);
  }

  void merge(int32_t a, int32_t b) {
    const auto id = static_cast<int32_t>(tokens_.size());
    const std::string bytes = tokens_[a] + tokens_[b];
    tokens_.push_back(bytes);
    token_ids_.insert(bytes, static_cast<uint32_t>(id));
    token_lengths_.insert(bytes.size());
    merges_.emplace_back(a, b);

    // The words holding any split (x, y) of the new token: (a, b) and any other one. Only
    // cuts where both sides have the length of some token are looked up (a long token
    // would otherwise cost a lookup of its whole length at each of its bytes).
    std::vector<int32_t> affected;
    for (const size_t s : token_lengths_) {
      if (s >= bytes.size()) break;
      if (!token_lengths_.count(bytes.size() - s)) continue;
      const uint32_t x = token_ids_.find(std::string_view(bytes).substr(0, s));
      const uint32_t y = token_ids_.find(std::string_view(bytes).substr(s));
      if (x == kAbsent || y == kAbsent) continue;
      const auto it = pair_words_.find(pack(static_cast<int32_t>(x), static_cast<int32_t>(y)));
      if (it == pair_words_.end()) continue;
      for (const int32_t w : it->second) {
        if (seen_[w] == id) continue;
        seen_[w] = id;
        affected.push_back(w);
      }
    }
    std::sort(affected.begin(), affected.end());

    // Re-segment each; collect the count changes and new (pair, word) links.
    std::unordered_map<uint64_t, int64_t> delta;
    std::vector<uint64_t> old_pairs;
    std::unordered_set<uint64_t> old_set;
    for (const int32_t w : affected) {
      std::vector<int32_t>& t = words_[w];
      old_pairs.clear();
      for (size_t i = 0; i + 1 < t.size(); ++i) old_pairs.push_back(pack(t[i], t[i + 1]));
      old_set.clear();
      old_set.insert(old_pairs.begin(), old_pairs.end());
      const size_t old_size = t.size();
      segment(t);
      if (t.size() == old_size) continue;  // a stale link: the word no longer holds a split
      for (const uint64_t p : old_pairs) delta[p] -= freq_[w];
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        const uint64_t p = pack(t[i], t[i + 1]);
        delta[p] += freq_[w];
        if (!old_set.count(p)) {
          auto& list = pair_words_[p];
          if (list.empty() || list.back() != w) list.push_back(w);
        }
      }
    }
    for (const auto& [p, d] : delta) {
      if (d == 0) continue;
      int64_t& c = pair_count_[p];
      c += d;
      if (c > 0) {
        heap_.push({c, p});
      } else {
        pair_count_.erase(p);
        pair_words_.erase(p);
      }
    }
  }

  int64_t n_merges_;
  int64_t linear_max_;  // longest word segmented by scans (longer: the heap)
  std::vector<std::string> tokens_;
  std::set<size_t> token_lengths_;  // the distinct lengths of the tokens so far
  BytesMap token_ids_{1024};
  std::vector<std::pair<int32_t, int32_t>> merges_;
  std::vector<std::vector<int32_t>> words_;
  std::vector<int64_t> freq_;
  std::vector<int32_t> seen_;  // last merge id that visited each word
  std::unordered_map<uint64_t, int64_t> pair_count_;
  std::unordered_map<uint64_t, std::vector<int32_t>> pair_words_;
  std::priority_queue<Candidate> heap_;
  std::string scratch_;
};

}  // namespace

const std::vector<int32_t>& gpt2_byte_ids() {
  static const std::vector<int32_t> ids = [] {
    // GPT-2's bytes in id order are the bytes sorted by their alphabet code point.
    std::vector<int32_t> order(256);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [](int32_t x, int32_t y) { return byte_to_unicode()[x] < byte_to_unicode()[y]; });
    std::vector<int32_t> id_of(256);
    for (int32_t id = 0; id < 256; ++id) id_of[order[id]] = id;
    return id_of;
  }();
  return ids;
}

BpeTrainResult train_bpe(std::string_view corpus, const BpeTrainOptions& options) {
  require(options.vocab_size >= 257,
          "bpe-train: vocab size " + std::to_string(options.vocab_size) +
              " is too small: it must be at least 257 (256 bytes + <|endoftext|>)");
  require(!corpus.empty(), "bpe-train: the corpus is empty");
  const size_t bad = utf8_first_invalid(corpus);
  require(bad == std::string_view::npos,
          "bpe-train: corpus: invalid UTF-8 at byte " + std::to_string(bad));

  BpeTrainResult result;
  const PieceCounts counts =
      count_pieces(corpus, options.threads, options.pretokenizer, &result.n_pieces);
  require(!counts.empty(), "bpe-train: the corpus has no text besides <|endoftext|>");
  result.n_distinct = static_cast<int64_t>(counts.size());

  Trainer trainer(counts, options.vocab_size - 257, options.linear_segment_max);
  trainer.run();
  result.tokens = trainer.take_tokens();
  result.merges = trainer.take_merges();
  result.tokens.emplace_back(kEndOfText);
  return result;
}

std::string bpe_encoder_json(const BpeTrainResult& result) {
  // One entry per line in id order, as OpenAI's file (nlohmann would sort the keys).
  std::string out = "{";
  for (size_t id = 0; id < result.tokens.size(); ++id) {
    out += id ? ",\n " : "";
    out += nlohmann::json(bytes_to_token_text(result.tokens[id])).dump();
    out += ": " + std::to_string(id);
  }
  out += "}\n";
  return out;
}

std::string bpe_merges_text(const BpeTrainResult& result) {
  std::string out = "#version: 0.2\n";
  for (const auto& [a, b] : result.merges) {
    out += bytes_to_token_text(result.tokens[a]) + ' ' + bytes_to_token_text(result.tokens[b]);
    out += '\n';
  }
  return out;
}

void write_bpe_vocab(const BpeTrainResult& result, const std::string& dir) {
  create_folder(dir, "bpe-train --out");
  write_file_atomic(dir + "/encoder.json", bpe_encoder_json(result));
  write_file_atomic(dir + "/vocab.bpe", bpe_merges_text(result));
}

}  // namespace tinylm
