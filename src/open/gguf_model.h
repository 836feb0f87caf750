// A model from a GGUF file of llama.cpp's gpt2, llama, qwen2 or qwen3 architecture
// (tinylm's exports, or those of llama.cpp's converter): the weights through
// model/gguf_lm.h, widened to float32,
// and the BPE tokenizer the file holds (tokenizer.ggml.model "gpt2"; the "gpt-2"
// pre-tokeniser or none named), rebuilt as encoder.json and vocab.bpe would give it. The
// tokens must be laid out as GPT-2's are (the 256 single bytes, then one token per merge,
// then special tokens and pads), or be a char vocabulary spelled as tinylm exports one
// (tokenizer/char_as_bpe.h, then pads), which comes back as that char tokenizer. A file
// naming another pre-tokeniser tinylm reads (llama-bpe, qwen2, smollm:
// tokenizer/gguf_pretokenizers.h) comes back as a tokenizer.json tokenizer
// (open/gguf_tokenizer_json.h).
// InputError naming the file and the key otherwise.
#pragma once
#include <memory>
#include <string>

#include "io/gguf.h"
#include "model/gpt.h"
#include "tokenizer/bpe_tokenizer.h"

namespace tinylm {

struct GgufModel {
  std::unique_ptr<GPT> model;
  std::unique_ptr<Tokenizer> tokenizer;
  GgmlType matrix_type = GgmlType::kF32;  // how the file stores the blocks' linear weights
};

GgufModel load_gguf_model(const std::string& path);
std::unique_ptr<Tokenizer> gguf_tokenizer(const Gguf& gguf);

}  // namespace tinylm
