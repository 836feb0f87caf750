// A model's decoding context, apart from the trainable model (as llama.cpp keeps a
// llama_context beside its llama_model): the copies of the weights decode steps read
// (decode_weights.h, prompt_weights.h), and every buffer decoding writes, per block
// (block_decoder.h) and for the embeddings and the head. The KV caches are per sequence
// (kv_cache.h): a server gives each request its own.
//   forward(ids, caches): ids [R] at each cache's next positions -> the last logits
//   [S, V] of each sequence, on the host
// The model must outlive the context, already be on its device, and keep its weights
// while the context is used: the copies are made once, here (a CPU path: on another
// device the float32 weights are read).
#pragma once
#include <span>
#include <vector>

#include "decode/block_decoder.h"
#include "decode/kv_cache.h"
#include "model/gpt.h"
#include "tensor/device_ids.h"

namespace tinylm {

class DecodeContext {
 public:
  explicit DecodeContext(GPT& model, decode::DecodeWeights weights = decode::DecodeWeights::kF32);

  // Inference with a KV cache (batch 1): ids [Tn] are positions cache.pos .. +Tn-1.
  // Returns the logits of the last of them [1, V] on the host (the context's own buffer:
  // valid until the next call) and advances cache.pos by Tn.
  Tensor forward(const int32_t* ids, int64_t Tn, KVCache& cache);
  // Several sequences at once, each with its own cache (batched decoding): sequence s
  // feeds counts[s] ids at caches[s]->pos (ids holds them one sequence after another).
  // Returns each sequence's last logits [S, V] on the host and advances each cache. The
  // weights are read once for all sequences. With one id per sequence and up to
  // ops::kRowInvariantMaxRows sequences, each row is bit for bit what that sequence gets
  // alone (so a server's batching does not change any request's tokens).
  Tensor forward(const int32_t* ids, std::span<const int64_t> counts,
                 std::span<KVCache* const> caches);

  // A cache for one sequence, on the model's device.
  KVCache new_cache() const { return KVCache(model_.config(), model_.device()); }
  // The weights decode steps read: f16, bf16 or Q8_0 copies of the linear layers and the
  // head (kF32: none). Prompts (more rows) read packed float32 copies of the blocks'
  // linear layers whatever the type; the head reads its copy after a prompt too (only
  // each sequence's last row), so both choose their next token from the same head.
  decode::DecodeWeights weights() const { return weights_; }
  // Bytes of weights one decode step reads (batch 1): the linear layers and the head as
  // their copies (or float32), norms and biases, one row of each embedding table.
  int64_t step_weight_bytes() const;
  GPT& model() { return model_; }
  const GPT& model() const { return model_; }

 private:
  void check_positions(std::span<const int64_t> counts, std::span<KVCache* const> caches) const;
  void embed(const int32_t* ids, std::span<const int64_t> counts, std::span<KVCache* const> caches,
             int64_t R);
  Tensor head(const Tensor& x, std::span<const int64_t> counts);

  GPT& model_;
  decode::DecodeWeights weights_;
  std::vector<decode::BlockDecoder> blocks_;
  decode::NormDecoder ln_f_;
  decode::DecodeCopy head_copy_;  // [V, C] in weights_ (empty for kF32)
  DeviceIds ids_;                 // the ids on the model's device
  // x [1, R, C] (embeddings), last [S, C] (each sequence's last row), logits [S, V]
  // (and a host copy on another device).
  Tensor x_, last_, logits_, logits_host_;
  std::vector<decode::CachedSpan> spans_;
};

}  // namespace tinylm
