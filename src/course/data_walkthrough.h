// What Raschka's chapter 2 prints while it turns text into training batches, for any
// corpus and tokenizer:
//   1. input -> target pairs for one context: for k = 1..context, the ids
//      ids[from : from+k] -> ids[from+k], and the same decoded as text;
//   2. one batch of the sliding-window loader (data/sliding_windows.h);
//   3. the token + position embeddings of that batch: wte [V, d] looks up [B, T] ->
//      [B, T, d]; wpe [T, d] gives [T, d]; their sum (broadcast over the batch) [B, T, d].
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "data/sliding_windows.h"
#include "tokenizer/tokenizer.h"

namespace tinylm::course {

struct ContextTargetPair {
  std::vector<int32_t> context;  // [k]
  int32_t target = 0;
  std::string context_text, target_text;  // decoded, outer spaces trimmed
};

// Pairs for k = 1..context, starting at ids[from]. InputError if the ids end too soon.
std::vector<ContextTargetPair> context_target_pairs(const Tokenizer& tok,
                                                    const std::vector<int32_t>& ids, int64_t from,
                                                    int64_t context);

struct EmbeddingShapes {
  std::vector<int64_t> token, position, input;  // [B, T, d], [T, d], [B, T, d]
  std::vector<float> first_input_row;           // input[0, 0, :], the first few values
};

// Runs nn::Embedding (vocab x d) and a learned nn::PositionalEncoding (T x d), both
// initialised N(0, 1) from `seed` as torch.nn.Embedding is, over the batch.
EmbeddingShapes embed_batch(const Batch& batch, int64_t vocab, int64_t d_model, uint64_t seed);

struct DataWalkthroughOptions {
  int64_t from = 50;    // where the input -> target pairs start
  int64_t context = 4;  // how many pairs (the context size)
  SlidingWindowOptions windows;
  int64_t d_model = 256;
  uint64_t seed = 123;
};

// The whole printout (the `tinylm data --show` text).
std::string data_walkthrough(const Tokenizer& tok, const std::string& text,
                             const std::string& source, const DataWalkthroughOptions& opt);

}  // namespace tinylm::course
