// llama.cpp's names for the byte-level BPE tokenizers of tokenizer.json files: a GGUF file
// says "tokenizer.ggml.model" = "gpt2" and names the pre-tokeniser ("tokenizer.ggml.pre"),
// whose regexes llama.cpp carries in its own code. One row per pre-tokeniser tinylm
// reads, both ways:
//   export  a tokenizer.json whose pre_tokenizer (and normalizer) is a row's is written
//           under the row's name (export/gguf_hf_tokenizer.h);
//   open    a GGUF file naming a row comes back as the tokenizer.json the row spells
//           (open/gguf_model.h), with the file's tokens and merges.
//
//   name        pre_tokenizer                                      models
//   gpt-2       ByteLevel with GPT-2's regex                        GPT-2
//   llama-bpe   Split(Llama 3's regex, \p{N}{1,3}) + ByteLevel      Llama 3.x
//   qwen2       Split(Qwen2's regex, \p{N} one digit) + ByteLevel    Qwen2.5, Qwen3
//   smollm      Digits(individual) + ByteLevel with GPT-2's regex    SmolLM2
//
// Normalizers: none, or NFC (Qwen's). llama.cpp applies no normalizer, so a Qwen GGUF
// file cuts text that is not in NFC differently from transformers (llama.cpp's own
// converter writes the same files); opened back, a qwen2 row has Qwen's NFC.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tinylm {

struct GgufPretokenizer {
  std::string name;              // tokenizer.ggml.pre
  nlohmann::json pre_tokenizer;  // as tokenizer.json spells it
  nlohmann::json normalizer;     // what a file opened back gets (null: none)
  bool ignore_merges = false;    // BPE model's ignore_merges (Llama 3's: whole words first)
};

const std::vector<GgufPretokenizer>& gguf_pretokenizers();

// The row named `name` (tokenizer.ggml.pre), or null.
const GgufPretokenizer* find_gguf_pretokenizer(const std::string& name);

// The row of a tokenizer.json (parsed): its pre_tokenizer equals the row's (trim_offsets
// aside, which moves offsets, never ids), its normalizer is none or NFC, its model is
// byte-level BPE (no byte_fallback, no subword prefix or suffix) and its decoder is
// ByteLevel. InputError naming `where` and the part llama.cpp has no name for otherwise.
const GgufPretokenizer& gguf_pretokenizer_of(const nlohmann::json& tokenizer_json,
                                             const std::string& where);

}  // namespace tinylm
