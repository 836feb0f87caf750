// GGUF interop for the llama family, as llama.cpp's converter writes it, one of three
// architectures by what the model has: "qwen3" (q/k norms), "qwen2" (q/k/v biases), else
// "llama". Tensors (tinylm name -> GGUF name):
//   embed_tokens -> token_embd                  norm -> output_norm
//   layers.N.input_layernorm -> blk.N.attn_norm  layers.N.post_attention_layernorm ->
//   blk.N.ffn_norm self_attn.{q,k,v,o}_proj -> attn_{q,k,v,output}  self_attn.{q,k}_norm ->
//   attn_{q,k}_norm mlp.{gate,up,down}_proj -> ffn_{gate,up,down}    lm_head -> output (untied
//   only)
// "llama" rotates adjacent pairs (Meta's layout), so its q and k rows are permuted as the
// converter does (within each head, row i and row i + D/2 become rows 2i and 2i + 1) and
// permuted back on reading; qwen2 and qwen3 rotate halves as Hugging Face does (no
// permutation). Matrices take the chosen type, norms and biases F32.
// Metadata <arch>.{context_length, embedding_length, block_count, feed_forward_length,
// attention.head_count, attention.head_count_kv, attention.key_length,
// attention.value_length, attention.layer_norm_rms_epsilon, rope.freq_base,
// rope.dimension_count}. Llama 3's rope_scaling is llama.cpp's rope_freqs.weight [D/2]
// (each frequency's divisor, as the converter computes it) plus tinylm.rope_scaling.*
// keys that give the four numbers back on reading (llama.cpp ignores them); a file with
// rope_freqs and without those keys is refused.
#pragma once
#include <memory>
#include <string>

#include "io/gguf.h"
#include "model/gpt.h"

namespace tinylm {

// Is general.architecture llama, qwen2 or qwen3?
bool is_llama_family_gguf(const Gguf& gguf);

Gguf llama_to_gguf(GPT& model, GgmlType type, const std::string& name);
std::unique_ptr<GPT> llama_from_gguf(const Gguf& gguf);
GPTConfig gguf_llama_config(const Gguf& gguf);

}  // namespace tinylm
