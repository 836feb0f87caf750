// Turning a tokenizer description back into a tokenizer, and building one for a corpus.
//
//   tokenizer_from_json({"kind": "char", ...})  -> CharTokenizer      (char_tokenizer.h)
//   tokenizer_from_json({"kind": "word", ...})  -> WordTokenizer      (word_tokenizer.h)
//   tokenizer_from_json({"kind": "addition"})   -> AdditionTokenizer  (addition_tokenizer.h)
//   tokenizer_from_json({"kind": "gpt2"})       -> BpeTokenizer (the shipped GPT-2 files)
//   tokenizer_from_json({"kind": "bpe", "dir": D}) -> BpeTokenizer (D/encoder.json, vocab.bpe)
//   tokenizer_from_json({"kind": "hf", "tokenizer.json": T, ...}) -> HfJsonTokenizer
//                                                      (hf_json_tokenizer.h)
// Every tokenizer's to_json() is accepted by tokenizer_from_json. An unknown or missing
// "kind" is an InputError naming it.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace tinylm {

std::unique_ptr<Tokenizer> tokenizer_from_json(const nlohmann::json& j);

// A Hugging Face folder that tinylm exports for a vocabulary other than GPT-2's own holds
// the tokenizer's to_json() in this file too (transformers ignores it), so that tinylm
// reads the folder back with the very tokenizer it came with (a char or word vocabulary
// has no Hugging Face tokenizer files at all).
inline constexpr const char* kTinylmTokenizerFile = "tinylm_tokenizer.json";

// The tokenizer stored in dir's kTinylmTokenizerFile, or null when there is none (the
// folder then speaks GPT-2's BPE, as transformers reads it).
std::unique_ptr<Tokenizer> stored_folder_tokenizer(const std::string& dir);

// The tokenizer a training run names in its config (data.tokenizer), built for `corpus`:
// "char" and "word" take their vocabulary from the corpus; "addition" ignores it; "gpt2";
// a folder with encoder.json + vocab.bpe; a tokenizer.json or a folder holding one.
// Unknown names are an InputError.
std::unique_ptr<Tokenizer> tokenizer_for_corpus(const std::string& name, std::string_view corpus);

}  // namespace tinylm
