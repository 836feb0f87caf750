// Byte pair merging of one pre-tokenised piece, with tiktoken's rule: start from single
// bytes; repeatedly merge the adjacent pair whose concatenation has the lowest rank
// (leftmost on ties) until no adjacent pair is a token.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_vocab.h"

namespace tinylm {

// Appends the ids of piece to out. Short pieces use a linear scan per merge (as tiktoken
// does); long ones (long runs of spaces or symbols) a heap, so the cost stays n log n.
void bpe_merge_piece(const BpeVocab& vocab, std::string_view piece, std::vector<int32_t>& out);

// The same, always with the linear scan: the reference the heap version is tested against.
void bpe_merge_piece_linear(const BpeVocab& vocab, std::string_view piece,
                            std::vector<int32_t>& out);

}  // namespace tinylm
