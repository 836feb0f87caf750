// One input walked through a GPT the way a transformer course does, as numbers:
//   ids [T] -> token embedding wte(ids) [T, C] + position embedding wpe(0..T-1) [T, C]
//           =  x0 [T, C]                            (the residual stream before block 0)
//           -> block l: attention weights [H, T, T], residual stream x_{l+1} [T, C]
//           -> ln_f, head: logits of the last position [V] -> the top next tokens
// The embedding rows are kept only for their first `dims` dimensions; the residual stream
// only as one L2 norm per position (and in full after the last block, for checking).
// Text labels (token strings) are the caller's business: this layer has no tokenizer.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/gpt.h"

namespace tinylm::report {

struct TokenProbability {
  int32_t id = 0;
  float probability = 0.0f;
};

struct AttendedPosition {
  int64_t position = 0;
  float weight = 0.0f;
};

struct BlockTrace {
  Tensor attention;                   // [H, T, T]: row q = query position q's weights
  std::vector<float> residual_norms;  // [T]: ||x_{l+1}[t]||_2, the stream after this block
};

struct Trace {
  std::vector<int32_t> ids;  // [T]
  int64_t dims = 0;          // leading embedding dimensions kept (min(requested, C))
  // "learned", "sinusoidal", or "rotary" (RoPE turns q and k inside attention: nothing
  // is added to the embedding, position_embedding is empty and embedding_sum the tokens')
  std::string positions = "learned";
  std::vector<float> token_embedding;      // [T, dims]  wte.weight[ids[t], :dims]
  std::vector<float> position_embedding;   // [T, dims]  wpe(t)[:dims]; empty for rotary
  std::vector<float> embedding_sum;        // [T, dims]  their sum, x0[t, :dims]
  std::vector<float> input_norms;          // [T]        ||x0[t]||_2 (before block 0)
  std::vector<BlockTrace> blocks;          // [n_layer]
  Tensor final_residual;                   // [T, C]     the stream after the last block
  std::vector<TokenProbability> top_next;  // the most likely tokens after ids, best first
};

// Runs ids (1 <= T <= block_size, else InputError) through the model in inference mode
// (no dropout). The logits behind top_next are those of model.forward(ids, 1, T).
Trace trace_input(GPT& model, const std::vector<int32_t>& ids, int64_t dims = 8, int64_t top_k = 5);

// The k positions that `query` attends to most in one head of one block, heaviest first
// (ties: the earlier position first). Only positions 0..query carry weight (causal).
std::vector<AttendedPosition> most_attended(const Trace& trace, int64_t layer, int64_t head,
                                            int64_t query, int64_t k);

}  // namespace tinylm::report
