// A tokenizer.json tokenizer (tokenizer/hf_json_tokenizer.h) as llama.cpp's "gpt2" BPE
// tokenizer in a GGUF file, as llama.cpp's converter writes Llama 3, Qwen and SmolLM2
// files:
//   tokenizer.ggml.pre          the pre-tokeniser's llama.cpp name
//                               (tokenizer/gguf_pretokenizers.h: llama-bpe, qwen2, ...)
//   tokenizer.ggml.tokens       the vocabulary's byte-level spellings, added tokens as
//                               their text, "[PAD<id>]" for rows of a larger model
//                               vocabulary
//   tokenizer.ggml.token_type   1 normal; 3 control for special added tokens and those
//                               that look special (<|...|>), 4 user-defined for the other
//                               added tokens (Qwen3's <think>); 5 unused for the pads
//   tokenizer.ggml.merges       "left right" in rank order
//   bos / eos token ids, add_bos_token / add_eos_token
//                               what encode(text, add_special_tokens=true) puts around
//                               the text; eos is the tokenizer's end of text (the
//                               config's eos_token)
//   tokenizer.chat_template     the model's chat template, when it has one
// Other tokenizer.json tokenizers (SentencePiece-style byte_fallback ones: Llama 2,
// Gemma) are refused naming what llama.cpp's gpt2 tokenizer cannot take.
#pragma once
#include <cstdint>

#include "io/gguf.h"
#include "tokenizer/hf_json_tokenizer.h"

namespace tinylm {

void add_gguf_hf_tokenizer(const HfJsonTokenizer& tokenizer, int64_t model_vocab, Gguf& gguf);

}  // namespace tinylm
