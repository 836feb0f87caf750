// GGUF interop for the model: a GPT as llama.cpp's "gpt2" architecture, and back.
//
// Tensors (tinylm name -> GGUF name):
//   wte.weight -> token_embd.weight      wpe.weight -> position_embd.weight
//   h.N.ln_1 -> blk.N.attn_norm          h.N.attn.c_attn -> blk.N.attn_qkv
//   h.N.attn.c_proj -> blk.N.attn_output h.N.ln_2 -> blk.N.ffn_norm
//   h.N.mlp.c_fc -> blk.N.ffn_up         h.N.mlp.c_proj -> blk.N.ffn_down
//   ln_f -> output_norm                  lm_head.weight -> output.weight (untied only)
// tinylm keeps linear weights [out, in] row-major, which is ggml's ne {in, out}: they are
// stored as they are. The embeddings, the four linear weights of each block and an untied
// head take the chosen type; norms, biases and the position table stay F32, as llama.cpp's
// converter writes them. A Q8_0 matrix whose rows are not whole blocks of 32 is written
// F16 instead (as the converter falls back).
//
// What llama.cpp's gpt2 graph cannot express is refused, naming the option: post-LN
// blocks, no residual connections, an activation other than GELU (tanh), a head bias. A
// model without some biases gets zero biases (the same function); sinusoidal positions
// are written as their table (the same numbers).
//
// Metadata: general.architecture "gpt2", general.name, general.file_type (and
// general.quantization_version 2 when a matrix is Q8_0, as llama.cpp writes it), and
// gpt2.{context_length, embedding_length, feed_forward_length, block_count,
// attention.head_count, attention.layer_norm_epsilon}. The tokenizer's keys are written
// by the caller (the model knows no tokenizer).
#pragma once
#include <memory>
#include <string>

#include "io/gguf.h"
#include "model/gpt.h"

namespace tinylm {

// The model's tensors and hyperparameters; `type` for the matrices.
Gguf gpt_to_gguf(GPT& model, GgmlType type, const std::string& name);

// A GPT from a "gpt2" GGUF (tinylm's or llama.cpp's converter's), weights widened to
// float32. InputError naming the file and the key or tensor when it is another
// architecture, a size disagrees with the tensors, or a tensor is missing.
std::unique_ptr<GPT> gpt_from_gguf(const Gguf& gguf);
// The shape alone (the same checks, no weights read).
GPTConfig gguf_gpt2_config(const Gguf& gguf);

// general.file_type of a file whose matrices are `type` (llama.cpp's numbers).
uint32_t gguf_file_type(GgmlType type);
// The type a matrix of rows `row` wide is written in: `type`, or F16 for Q8_0 rows that
// are not whole blocks (as llama.cpp's converter falls back).
GgmlType gguf_matrix_type(GgmlType type, int64_t row);

}  // namespace tinylm
