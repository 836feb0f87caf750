// A classification data set (Raschka ch. 6): labelled texts -> label ids -> optional
// balancing -> shuffled train / val / test split -> token ids padded to one length.
//
//   read_labeled_texts (labeled_texts.h)
//   -> labels: ids in the order of `labels` if given (a label not in it is an error),
//      else the distinct labels sorted by name (byte order): ham = 0, spam = 1
//   -> balance (optional): every class is cut to the size of the smallest by a seeded
//      random choice, kept in file order (the course: 747 ham + 747 spam)
//   -> split: a seeded shuffle of all examples, then n_train = floor(n * train_fraction),
//      n_val = floor(n * val_fraction), test = the rest (the course: 1,494 -> 1,045 /
//      149 / 300)
//   -> tokenise each text with the given tokenizer (Tokenizer::encode)
//   -> length T = max_length if > 0, else the longest training text, and at most
//      context_length when that is > 0 (the model's block size); every split is
//      padded with pad_id on the right to T, and texts longer than T are cut to their
//      first T tokens. The number cut per split is kept, and said once on stderr.
// Shuffle and choice use tinylm's Rng (util/rng.h), so the subsets are not pandas'
// (random_state=123) but are fixed by `seed` on every machine.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/labeled_texts.h"
#include "tokenizer/tokenizer.h"
#include "util/rng.h"

namespace tinylm {

struct ClassificationOptions {
  LabeledTextFormat format;
  std::vector<std::string> labels;  // id -> name; empty = the file's labels, sorted
  bool balance = false;
  double train_fraction = 0.7;
  double val_fraction = 0.1;  // test = what is left
  uint64_t seed = 123;
  int64_t max_length = 0;      // 0 = the longest training text
  int64_t context_length = 0;  // > 0: T is at most this (the model's context)
  int32_t pad_id = -1;         // -1 = the tokenizer's <|endoftext|> (50256 for GPT-2)
  bool quiet = false;          // do not print the truncation note
};

// One split: N examples, each padded to T tokens.
struct ClassificationSet {
  int64_t T = 0;
  std::vector<int32_t> ids;      // [N, T] row-major, right-padded with pad_id
  std::vector<int32_t> labels;   // [N]
  std::vector<int32_t> lengths;  // [N] tokens before padding (after truncation)
  std::vector<int64_t> lines;    // [N] the line of each example in the data file
  int64_t truncated = 0;         // texts longer than T, cut

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

struct ClassificationData {
  std::vector<std::string> labels;  // id -> name
  int32_t pad_id = 0;
  int64_t max_length = 0;  // T of every split
  int64_t longest = 0;     // the longest text of any split in tokens, before truncation
  ClassificationSet train, val, test;
  std::vector<int64_t> class_counts;  // per label id, after balancing

  // "" or e.g. "3 of 1494 texts are longer than 120 tokens and were cut to 120 (train
  // 0, val 1, test 2)".
  std::string truncation_note() const;
};

// A batch of examples for a classifier: ids [B, T], labels [B].
struct ClassificationBatch {
  int64_t B = 0, T = 0;
  std::vector<int32_t> ids;     // [B*T]
  std::vector<int32_t> labels;  // [B]
};

// Reads, balances, splits and encodes a data file. Errors: InputError (see
// labeled_texts.h; also "FILE:LINE: unknown label 'x' (expected one of ...)", fewer than
// two distinct labels, balancing with a label that has no example, fractions outside
// [0, 1] or summing above 1, an empty training split, a tokenizer without <|endoftext|>
// and no pad_id).
ClassificationData load_classification_data(const std::string& path, const Tokenizer& tokenizer,
                                            const ClassificationOptions& options);

// text -> its token ids cut / padded to exactly T (classifying a new text, as
// `tinylm classify` does, with the T of training). `length` gets the unpadded length,
// `truncated` whether the text was cut.
std::vector<int32_t> encode_padded(const Tokenizer& tokenizer, const std::string& text, int64_t T,
                                   int32_t pad_id, int32_t* length = nullptr,
                                   bool* truncated = nullptr);

// Rows `indices` of a split as one batch.
ClassificationBatch make_classification_batch(const ClassificationSet& set,
                                              std::span<const int64_t> indices);

// The order of one epoch in batches of `batch_size` example indices in [0, n):
// shuffled with rng when shuffle (the training loader), else 0..n-1; drop_last leaves
// out a last batch smaller than batch_size (the course drops it for training only).
std::vector<std::vector<int64_t>> epoch_batches(int64_t n, int64_t batch_size, bool shuffle,
                                                bool drop_last, Rng& rng);

}  // namespace tinylm
