// A model opened by open/ as a GGUF file that llama.cpp runs (`tinylm export --format
// gguf`): model/gguf_gpt2.h's tensors and hyperparameters, and the tokenizer as llama.cpp's
// "gpt2" BPE tokenizer:
//   tokenizer.ggml.model "gpt2", tokenizer.ggml.pre "gpt-2" (GPT-2's pre-tokeniser)
//   tokenizer.ggml.tokens      every token spelled as in encoder.json (GPT-2's
//                              byte-to-unicode alphabet); special tokens as their text;
//                              rows of a model vocabulary larger than the tokenizer's as
//                              "[PAD<id>]", as llama.cpp's converter writes them
//   tokenizer.ggml.token_type  1 normal, 3 control (special tokens), 5 unused (pads)
//   tokenizer.ggml.merges      "left right" in rank order, as in vocab.bpe
//   bos / eos token ids        <|endoftext|>; add_bos_token false (GPT-2 adds none)
// GPT-2 BPE and trained BPE vocabularies with GPT-2's pre-tokeniser are exported, and a
// char vocabulary as the byte-level BPE vocabulary that cuts texts as it does
// (tokenizer/char_as_bpe.h; it has no end-of-text token, so none is named and llama.cpp
// takes its gpt2 default, id 11, as one). A tokenizer.json tokenizer goes out through
// export/gguf_hf_tokenizer.h. Other tokenizers (word, letters-marks BPE) and classifiers
// are refused, naming them.
#pragma once
#include <string>

#include "io/gguf.h"
#include "open/open_model.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/char_tokenizer.h"

namespace tinylm {

// The GGUF of an opened language model; `type` for its matrices, `name` its general.name.
Gguf export_gguf(OpenedModel& opened, GgmlType type, const std::string& name);

// The tokenizer keys above, for a model of `model_vocab` rows.
void add_gguf_tokenizer(const BpeTokenizer& tokenizer, int64_t model_vocab, Gguf& gguf);
void add_gguf_char_tokenizer(const CharTokenizer& tokenizer, int64_t model_vocab, Gguf& gguf);

}  // namespace tinylm
