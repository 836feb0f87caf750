// A corpus ready for training: its tokenizer and its train / validation token ids.
//
//   load_token_dataset("data/tinyshakespeare.txt", "char", block_size, 0.1)
//     = load_corpus(path) (corpus.h) -> tokenizer_for_corpus(name, text) (tokenizer/load.h)
//       -> encode -> split_tokens(ids, block_size, val_fraction) (split.h)
// A char or word vocabulary is taken from the whole corpus (both splits), as nanoGPT does.
// tokenizer "" means "char".
//
// path may also be a folder written by `tinylm prepare` (nanoGPT's data/<name>/ layout):
//   meta.json {"tokenizer": {...}, "dtype": "uint16" | "uint32", ...}, train.bin, val.bin
//   (ids of that width, token_file.h; uint16 when meta.json names none)
// Then the splits are the two files, val_fraction is not used, and the tokenizer is the
// one in meta.json; a non-empty `tokenizer` must name the same one (its kind, e.g. "gpt2",
// or its folder).
// Errors are InputError (missing / empty / non-UTF-8 corpus, unknown tokenizer, corpus
// too short for block_size, a prepared folder with a file missing, an id out of range,
// or a tokenizer other than the folder's).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tinylm {

struct TokenDataset {
  std::unique_ptr<Tokenizer> tokenizer;
  std::vector<int32_t> train;
  std::vector<int32_t> val;
};

TokenDataset load_token_dataset(const std::string& path, const std::string& tokenizer,
                                int64_t block_size, double val_fraction = 0.1);

}  // namespace tinylm
