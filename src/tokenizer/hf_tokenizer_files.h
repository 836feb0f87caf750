// A byte-level BPE tokenizer as the files Hugging Face's GPT-2 tokenizers read, written
// into a model folder (`tinylm export --format hf`, `tinylm lora merge`; see
// folder_tokenizer_files.h):
//   vocab.json               token text -> id (encoder.json's format)
//   merges.txt               "#version: 0.2" and "left right" per merge (vocab.bpe's)
//   tokenizer.json           the `tokenizers` library's format: model BPE with that vocab
//                            and merges, the vocabulary's pre-tokeniser (GPT-2's ByteLevel
//                            with its regex, or letters-marks as a Split before ByteLevel:
//                            hf_pretokenizer_json.h), ByteLevel decoder, the special
//                            tokens as added tokens
//   tokenizer_config.json    GPT2Tokenizer (PreTrainedTokenizerFast for letters-marks,
//                            which GPT-2's slow tokenizer cannot cut), <|endoftext|> (or the
//                            vocabulary's end-of-text token) as bos/eos/unk, no bos added,
//                            model_max_length
//   special_tokens_map.json  the same special tokens
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tokenizer/bpe_tokenizer.h"

namespace tinylm {

// The `tokenizers` library's tokenizer.json for this vocabulary.
nlohmann::json hf_tokenizer_json(const BpeTokenizer& tokenizer);

// Writes tokenizer.json and a tokenizer_config.json for it alone (PreTrainedTokenizerFast,
// no model_max_length) into dir (which exists): `tinylm bpe-train`'s folder.
void write_hf_tokenizer_json(const BpeTokenizer& tokenizer, const std::string& dir);

// Writes the five files above into dir (which exists).
void write_hf_tokenizer_files(const BpeTokenizer& tokenizer, int64_t model_max_length,
                              const std::string& dir);

}  // namespace tinylm
