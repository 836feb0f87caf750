// A byte-level BPE tokenizer as the files Hugging Face's GPT-2 tokenizers read, written
// into a model folder (`tinylm export --format hf`, `tinylm lora merge`; see
// folder_tokenizer_files.h):
//   vocab.json               token text -> id (encoder.json's format)
//   merges.txt               "#version: 0.2" and "left right" per merge (vocab.bpe's)
//   tokenizer.json           the `tokenizers` library's format: model BPE with that vocab
//                            and merges, GPT-2's ByteLevel pre-tokenizer (its regex) and
//                            decoder, the special tokens as added tokens
//   tokenizer_config.json    GPT2Tokenizer, <|endoftext|> (or the vocabulary's end-of-text
//                            token) as bos/eos/unk, no bos added, model_max_length
//   special_tokens_map.json  the same special tokens
// GPT-2 BPE and trained BPE with GPT-2's pre-tokeniser; others are refused, naming it.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tokenizer/bpe_tokenizer.h"

namespace tinylm {

// The `tokenizers` library's tokenizer.json for this vocabulary.
nlohmann::json hf_tokenizer_json(const BpeTokenizer& tokenizer);

// Writes the five files above into dir (which exists).
void write_hf_tokenizer_files(const BpeTokenizer& tokenizer, int64_t model_max_length,
                              const std::string& dir);

}  // namespace tinylm
