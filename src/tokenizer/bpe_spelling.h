// A BPE vocabulary spelled as the files of other programs spell it (GGUF, Hugging Face's
// vocab.json / merges.txt / tokenizer.json): tokens in GPT-2's byte-to-unicode alphabet
// (tokenizer/bpe_vocab.h), special tokens as their text, merges as "left right" in rank
// order, as in vocab.bpe.
#pragma once
#include <string>
#include <vector>

#include "tokenizer/bpe_tokenizer.h"

namespace tinylm {

// The text of token `id`; special tokens (ids from 256 + n_merges on) as their text.
std::string bpe_token_text(const BpeVocab& v, int32_t id);
bool is_special_token(const BpeVocab& v, int32_t id);

// "left right" for every merge, in rank order.
std::vector<std::string> bpe_merge_texts(const BpeVocab& v);

// InputError unless the tokenizer cuts text as GPT-2 does (the only pre-tokeniser that
// GGUF's byte-level BPE expresses; tokenizer.json takes letters-marks as a Split,
// hf_pretokenizer_json.h); `format` names the target.
void require_gpt2_pretokenizer(const BpeTokenizer& tokenizer, const std::string& format);

}  // namespace tinylm
