#include "decode/decode_context.h"

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm {

namespace {

// The copies are CPU copies: on another device the float32 weights are read.
decode::DecodeWeights on_device(decode::DecodeWeights weights, Device device) {
  return device == Device::kCpu ? weights : decode::DecodeWeights::kF32;
}

}  // namespace

DecodeContext::DecodeContext(GPT& model, decode::DecodeWeights weights)
    : model_(model), weights_(on_device(weights, model.device())), ln_f_(model.ln_f) {
  blocks_.reserve(model.h.size());
  const bool rotary = model.config().position == PositionEncoding::Rotary;
  for (const nn::TransformerBlock& block : model.h)
    blocks_.emplace_back(block, weights_, rotary ? &model.rope() : nullptr);
  head_copy_.make(model.head_weight().value, weights_);
}

Tensor DecodeContext::forward(const int32_t* ids, int64_t Tn, KVCache& cache) {
  KVCache* const one = &cache;
  return forward(ids, std::span<const int64_t>(&Tn, 1), std::span<KVCache* const>(&one, 1));
}

Tensor DecodeContext::forward(const int32_t* ids, std::span<const int64_t> counts,
                              std::span<KVCache* const> caches) {
  check_positions(counts, caches);
  int64_t R = 0;  // rows: every sequence's new positions, one sequence after another
  for (int64_t n : counts) R += n;
  embed(ids, counts, caches, R);
  const size_t S = counts.size();
  spans_.resize(S);
  Tensor x = x_;
  for (size_t l = 0; l < blocks_.size(); ++l) {
    for (size_t s = 0; s < S; ++s)
      spans_[s] = {&caches[s]->k[l], &caches[s]->v[l], caches[s]->pos, counts[s]};
    x = blocks_[l].forward(x, spans_);
  }
  for (size_t s = 0; s < S; ++s) caches[s]->pos += counts[s];
  return head(x, counts);
}

void DecodeContext::check_positions(std::span<const int64_t> counts,
                                    std::span<KVCache* const> caches) const {
  const int64_t block = model_.config().block_size;
  require(!counts.empty() && caches.size() == counts.size(),
          "DecodeContext::forward: one count per cache");
  for (size_t s = 0; s < counts.size(); ++s) {
    const int64_t pos = caches[s]->pos, n = counts[s];
    require(n > 0 && pos + n <= block, [&] {
      return "positions " + std::to_string(pos) + ".." + std::to_string(pos + n - 1) +
             " exceed the model's context (block_size " + std::to_string(block) + ")";
    });
  }
}

// x [1, R, C] = wte(ids) + wpe(each sequence's positions); rotary positions: wte(ids)
// (attention rotates q and k).
void DecodeContext::embed(const int32_t* ids, std::span<const int64_t> counts,
                          std::span<KVCache* const> caches, int64_t R) {
  const int64_t C = model_.config().d_model, V = model_.config().vocab_size;
  const Tensor& wte = model_.wte.weight.value;
  const Tensor& wpe = model_.wpe.weight.value;  // learned or sinusoidal: [block_size, C]
  const Backend& kernels = on(wte);
  x_.ensure_shape({1, R, C}, wte.device());
  kernels.embedding_forward(ids_.on(wte.device(), ids, R), wte.data(), x_.data(), R, V, C);
  if (model_.config().position == PositionEncoding::Rotary) return;
  for (size_t s = 0, r = 0; s < counts.size(); r += counts[s], ++s) {
    float* rows = x_.data() + r * C;
    kernels.add(rows, wpe.data() + caches[s]->pos * C, rows, counts[s] * C);
  }
}

// Only each sequence's last position needs logits (to choose its next token):
// x [1, R, C] -> ln_f of the last rows [S, C] -> logits [S, V] on the host.
Tensor DecodeContext::head(const Tensor& x, std::span<const int64_t> counts) {
  const int64_t C = model_.config().d_model, V = model_.config().vocab_size;
  const int64_t S = static_cast<int64_t>(counts.size());
  const Device device = x.device();
  const Backend& kernels = on(x);
  last_.ensure_shape({S, C}, device);
  for (int64_t s = 0, r = 0; s < S; ++s) {
    r += counts[s];
    kernels.copy(x.data() + (r - 1) * C, last_.data() + s * C, C);
  }
  const Tensor normed = ln_f_.forward(last_);
  logits_.ensure_shape({S, V}, device);
  const float* bias = model_.config().head_bias ? model_.lm_head_bias.value.data() : nullptr;
  if (device == Device::kCpu && head_copy_.serves(S))
    head_copy_.forward(normed.data(), bias, logits_.data(), S);
  else
    kernels.linear_forward(normed.data(), model_.head_weight().value.data(), bias, logits_.data(),
                           S, C, V);
  if (device == Device::kCpu) return logits_;
  logits_host_.ensure_shape({S, V}, Device::kCpu);
  logits_host_.copy_from(logits_);
  return logits_host_;
}

int64_t DecodeContext::step_weight_bytes() const {
  const Tensor& head_w = model_.head_weight().value;
  const bool rotary = model_.config().position == PositionEncoding::Rotary;
  // a row of the token table, and of the position table
  int64_t bytes = 4 * (rotary ? 1 : 2) * model_.config().d_model;
  for (const decode::BlockDecoder& block : blocks_) bytes += block.step_bytes();
  bytes += ln_f_.step_bytes();
  bytes += head_copy_.empty() ? 4 * head_w.numel() : head_copy_.bytes();
  return bytes + 4 * model_.lm_head_bias.value.numel();
}

}  // namespace tinylm
