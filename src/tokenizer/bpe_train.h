// Training a byte-level BPE vocabulary, GPT-2 style, written in OpenAI's file format
// (encoder.json + vocab.bpe, see bpe_vocab.h) so that BpeTokenizer(dir, "bpe") loads it.
//
//   corpus -> "<|endoftext|>" cut out -> GPT-2 pre-tokenisation (bpe_pretokenize.h, the
//   encoder's own) -> distinct pieces with their counts, each piece a list of byte ids
//   -> repeatedly: merge the most frequent adjacent pair into a new token.
//
// Ids follow GPT-2's layout (bpe_vocab.h): ids 0..255 are the single bytes in GPT-2's
// order (the order of their byte-to-unicode code points: the printable bytes '!'..'~',
// 0xA1..0xAC, 0xAE..0xFF first, then the other 68), merge i gives id 256+i, and
// "<|endoftext|>" is the last id. So vocab_size N gives N - 257 merges (N >= 257).
//
// Choices:
//  - Tie-breaking: the pair with the highest count wins; among equal counts, the
//    smallest (left id, right id). Training is deterministic and does not depend on the
//    thread count (threads only split the piece counting).
//  - Words are kept segmented exactly as the encoder (tiktoken's rule: repeatedly merge
//    the adjacent pair whose concatenated bytes form the lowest-ranked token, rank = id)
//    would segment them with the tokens made so far. After a merge, a word that now holds
//    two adjacent tokens forming any existing token (another split of the new token, or
//    an older token reachable again) is merged further. So the counts always describe
//    what the final encoder produces, and no merge ever recreates an existing token.
//    When every split of each token is the one its merge used (the usual case), this is
//    the same as applying the merges in training order. Re-segmenting a long word (a run
//    of one letter, DNA, base64) uses a heap, so each merge costs n log n in its length.
//  - Incremental counting: pair -> count and pair -> words holding it (lazily pruned);
//    after a merge only the words holding a split of the new token are re-segmented, and
//    the best pair comes from a max-heap with lazy invalidation (an entry is used only if
//    its count is still the pair's current count).
//  - If no adjacent pair is left (every piece is one token) training stops early with
//    fewer merges than asked; BpeTrainResult says how many were made.
//  - "<|endoftext|>" in the corpus separates documents: it is cut out, never counted.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/bpe_pretokenizer_choice.h"

namespace tinylm {

struct BpeTrainOptions {
  int64_t vocab_size = 0;  // 256 bytes + merges + 1 special; >= 257
  int threads = 1;         // for counting the pieces
  Pretokenizer pretokenizer = Pretokenizer::Gpt2;  // how the corpus is cut into pieces
  // Words longer than this (in tokens) are re-segmented with a heap (n log n) instead of
  // repeated scans (n^2); both give the same result (tests compare them).
  int64_t linear_segment_max = 64;
};

struct BpeTrainResult {
  // id -> token bytes: 0..255 the single bytes, 256.. the merges, last "<|endoftext|>".
  std::vector<std::string> tokens;
  // Merge i: (left id, right id) -> id 256 + i.
  std::vector<std::pair<int32_t, int32_t>> merges;
  int64_t n_pieces = 0;    // pieces in the corpus
  int64_t n_distinct = 0;  // distinct pieces
};

// The id of each byte in GPT-2's layout (ids 0..255).
const std::vector<int32_t>& gpt2_byte_ids();

// Trains on a UTF-8 corpus. Throws InputError on vocab_size < 257, an empty corpus (or
// one with nothing but "<|endoftext|>"), and invalid UTF-8 (naming the byte offset).
BpeTrainResult train_bpe(std::string_view corpus, const BpeTrainOptions& options);

// The two files' contents (GPT-2's format, tokens in the byte-to-unicode alphabet).
std::string bpe_encoder_json(const BpeTrainResult& result);
std::string bpe_merges_text(const BpeTrainResult& result);

// Creates dir if needed and writes dir/encoder.json and dir/vocab.bpe atomically.
void write_bpe_vocab(const BpeTrainResult& result, const std::string& dir);

}  // namespace tinylm
