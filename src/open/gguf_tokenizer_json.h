// The tokenizer of a GGUF file whose tokenizer.ggml.pre names a row of
// tokenizer/gguf_pretokenizers.h other than GPT-2's (llama-bpe, qwen2, smollm: Llama 3,
// Qwen and SmolLM2 files, tinylm's exports or llama.cpp's converter's), rebuilt as the
// tokenizer.json and tokenizer_config.json that give it:
//   model         BPE over the normal tokens (type 1), the merges in order, the row's
//                 ignore_merges; pads (type 5) are left out
//   added_tokens  control (3) tokens as special, user-defined (4) ones as not
//   normalizer, pre_tokenizer   the row's; decoder ByteLevel
//   config        bos_token, eos_token, add_bos_token, add_eos_token, chat_template
// InputError naming the file and the key when a list is missing or of the wrong type.
#pragma once
#include <memory>

#include "io/gguf.h"
#include "tokenizer/gguf_pretokenizers.h"
#include "tokenizer/hf_json_tokenizer.h"

namespace tinylm {

std::unique_ptr<HfJsonTokenizer> gguf_tokenizer_json(const Gguf& gguf, const GgufPretokenizer& pre);

}  // namespace tinylm
