#include "report/trace.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "ops/softmax.h"
#include "util/error.h"

namespace tinylm::report {

namespace {

// x [T, C] -> [T]: the L2 norm of each row.
std::vector<float> row_norms(const Tensor& x, int64_t T, int64_t C) {
  std::vector<float> norms(T);
  for (int64_t t = 0; t < T; ++t) {
    double sum = 0.0;
    for (int64_t c = 0; c < C; ++c) sum += static_cast<double>(x[t * C + c]) * x[t * C + c];
    norms[t] = static_cast<float>(std::sqrt(sum));
  }
  return norms;
}

// table [T, C] -> [T, dims]: the first dims columns of each row.
std::vector<float> leading_dims(const Tensor& table, int64_t T, int64_t C, int64_t dims) {
  std::vector<float> out(T * dims);
  for (int64_t t = 0; t < T; ++t)
    std::copy(table.data() + t * C, table.data() + t * C + dims, out.data() + t * dims);
  return out;
}

// logits [V] -> the k most probable ids under softmax(logits), best first.
std::vector<TokenProbability> top_probabilities(const float* logits, int64_t V, int64_t k) {
  std::vector<float> probs(V);
  ops::softmax_forward(logits, probs.data(), 1, V);
  std::vector<int32_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  const auto n = static_cast<std::ptrdiff_t>(std::min(k, V));
  std::partial_sort(order.begin(), order.begin() + n, order.end(), [&](int32_t a, int32_t b) {
    return probs[a] != probs[b] ? probs[a] > probs[b] : a < b;
  });
  std::vector<TokenProbability> top;
  for (std::ptrdiff_t i = 0; i < n; ++i) top.push_back({order[i], probs[order[i]]});
  return top;
}

}  // namespace

Trace trace_input(GPT& model, const std::vector<int32_t>& ids, int64_t dims, int64_t top_k) {
  const GPTConfig& config = model.config();
  const auto T = static_cast<int64_t>(ids.size());
  const int64_t C = config.d_model, V = config.vocab_size;
  require(T > 0, "trace: the input has no tokens");
  require(T <= config.block_size, "the input is " + std::to_string(T) +
                                      " tokens, more than the model's context (block_size " +
                                      std::to_string(config.block_size) + ")");
  require(dims > 0, "trace: dims must be positive");
  require(top_k > 0, "trace: top_k must be positive");

  Trace trace;
  trace.ids = ids;
  trace.dims = std::min(dims, C);
  const bool rotary = config.position == PositionEncoding::Rotary;
  trace.positions = rotary ? "rotary" : model.wpe.learned() ? "learned" : "sinusoidal";

  // x0 = wte(ids) + wpe(0..T-1)  [1, T, C], as GPT::forward builds it (no dropout here);
  // rotary positions add nothing here.
  const Tensor tok = model.wte.forward(ids.data(), T);  // [T, C]
  Tensor x = tok.clone().reshaped({1, T, C});
  trace.token_embedding = leading_dims(tok, T, C, trace.dims);
  if (!rotary) {
    const Tensor pos = model.wpe.forward(0, T);  // [T, C]
    for (int64_t i = 0; i < T * C; ++i) x[i] += pos[i];
    trace.position_embedding = leading_dims(pos, T, C, trace.dims);
  }
  trace.embedding_sum = leading_dims(x, T, C, trace.dims);
  trace.input_norms = row_norms(x, T, C);

  // The blocks one at a time, so the residual stream between them can be measured.
  const nn::Context inference;  // training = false: dropout is the identity
  ops::AttentionMask mask;
  mask.causal = true;
  for (auto& block : model.h) {
    x = block.forward(x, inference, mask, rotary ? &model.rope() : nullptr);  // [1, T, C]
    BlockTrace bt;
    bt.attention = block.attn.attention().clone().reshaped({block.attn.n_head(), T, T});
    bt.residual_norms = row_norms(x, T, C);
    trace.blocks.push_back(std::move(bt));
  }
  trace.final_residual = x.clone().reshaped({T, C});

  // The model's own forward pass gives the logits, so the top tokens are exactly what
  // sampling from it would see.
  const Tensor logits = model.forward(ids.data(), 1, T);  // [1, T, V]
  trace.top_next = top_probabilities(logits.data() + (T - 1) * V, V, top_k);
  return trace;
}

std::vector<AttendedPosition> most_attended(const Trace& trace, int64_t layer, int64_t head,
                                            int64_t query, int64_t k) {
  require(layer >= 0 && layer < static_cast<int64_t>(trace.blocks.size()),
          "most_attended: no block " + std::to_string(layer));
  const Tensor& att = trace.blocks[layer].attention;  // [H, T, T]
  const int64_t H = att.dim(0), T = att.dim(1);
  require(head >= 0 && head < H, "most_attended: no head " + std::to_string(head));
  require(query >= 0 && query < T, "most_attended: no query position " + std::to_string(query));
  const float* row = att.data() + (head * T + query) * T;
  std::vector<AttendedPosition> keys;
  for (int64_t p = 0; p <= query; ++p) keys.push_back({p, row[p]});
  const auto n = static_cast<std::ptrdiff_t>(std::min<int64_t>(std::max<int64_t>(k, 0), query + 1));
  std::partial_sort(keys.begin(), keys.begin() + n, keys.end(),
                    [](const AttendedPosition& a, const AttendedPosition& b) {
                      return a.weight != b.weight ? a.weight > b.weight : a.position < b.position;
                    });
  keys.resize(n);
  return keys;
}

}  // namespace tinylm::report
