// GPT-2's byte-level BPE cut to a smaller vocabulary: the 256 bytes, the first
// vocab - 257 merges in their order, and <|endoftext|> as the last id. A BPE stopped
// earlier is exactly this (a token's id is its merge rank, bpe_vocab.h), so every text
// still encodes, with longer pieces than GPT-2's where the merges are gone. It is what a
// preset whose vocabulary is smaller than GPT-2's speaks (SmolLM2-135M's 49152 rows, with
// random weights: `tinylm export --model smollm2-135m`, bench/gguf.sh).
#pragma once
#include <cstdint>
#include <string>

#include "tokenizer/bpe_tokenizer.h"

namespace tinylm {

// vocab in [257, 50257]; dir holds GPT-2's encoder.json and vocab.bpe. Kind "bpe": its
// to_json() carries the cut files, so a run or an export keeps exactly these ids.
BpeTokenizer gpt2_tokenizer_cut_to(int64_t vocab, const std::string& dir = default_gpt2_dir());

}  // namespace tinylm
