#include "model/gpt.h"

#include <algorithm>
#include <cmath>

#include "backend/registry.h"
#include "nn/init.h"
#include "util/error.h"
#include "util/ignore_index.h"

namespace tinylm {

namespace {

// The config checked (shape and memory) before the first member allocates.
const GPTConfig& validated(const GPTConfig& config) {
  config.validate();
  return config;
}

bool rotary(const GPTConfig& c) {
  return c.position == PositionEncoding::Rotary;
}

// The parameter names of the model's own modules: GPT-2's or the llama family's.
struct ModelNames {
  const char* wte;
  const char* blocks;
  const char* ln_f;
};
ModelNames model_names(const GPTConfig& c) {
  if (c.arch == Arch::Llama) return {"embed_tokens", "layers", "norm"};
  return {"wte", "h", "ln_f"};
}

}  // namespace

GPT::GPT(const GPTConfig& config)
    : wte(validated(config).vocab_size, config.d_model),
      wpe(rotary(config) ? 0 : config.block_size, config.d_model,
          config.position == PositionEncoding::Learned),
      ln_f(config.d_model, config.ln_bias, config.norm_eps,
           config.arch == Arch::Llama ? nn::NormKind::kRmsNorm : nn::NormKind::kLayerNorm),
      config_(config),
      embd_drop_(config.dropout) {
  for (int64_t i = 0; i < config.n_layer; ++i) h.emplace_back(block_config(config));
  if (rotary(config))
    rope_ = nn::RotaryTables(config.rope_theta, config.rope_scaling, config.head_size(),
                             config.block_size);
  if (!config.tie_head) lm_head_weight = Parameter({config.vocab_size, config.d_model}, true);
  if (config.head_bias) lm_head_bias = Parameter({config.vocab_size}, false);
}

void GPT::init(Rng& rng) {
  const float std = 0.02f;
  const float proj_std = std / std::sqrt(2.0f * static_cast<float>(config_.n_layer));
  wte.init(rng, std);
  wpe.init(rng, std);
  for (auto& block : h) block.init(rng, std, proj_std);
  ln_f.init();
  if (!config_.tie_head) nn::init_normal(lm_head_weight.value, rng, std);
  if (config_.head_bias) lm_head_bias.value.zero();
}

void GPT::to(Device device) {
  move_parameters(parameters(), device);
  if (!wpe.learned()) wpe.weight.to(device);  // the sinusoidal table, not a parameter
  if (rotary(config_)) rope_.to(device);
  device_ = device;
}

Tensor GPT::forward_hidden(const int32_t* ids, int64_t B, int64_t T, const nn::Context& ctx,
                           const ops::AttentionMask* padding_mask) {
  const int64_t C = config_.d_model;
  require(B > 0 && T > 0, "GPT::forward: empty batch");
  require(T <= config_.block_size, [&] {
    return "sequence length " + std::to_string(T) + " exceeds the model's context (block_size " +
           std::to_string(config_.block_size) + ")";
  });
  B_ = B, T_ = T;

  // x0 = wte(ids) + wpe(positions)  [B, T, C]; rotary positions: x0 = wte(ids)
  const Tensor tok = wte.forward(ids, B * T).reshaped({B, T, C});
  if (!rotary(config_)) {
    const Tensor pos = wpe.forward(0, T);
    x0_.ensure_shape({B, T, C}, device_);
    on(tok).add_positions(tok.data(), pos.data(), x0_.data(), B, T, C);
  }

  ops::AttentionMask mask;
  if (padding_mask) mask = *padding_mask;
  mask.causal = true;

  Tensor x = embd_drop_.forward(rotary(config_) ? tok : x0_, ctx);
  const nn::RotaryTables* rope = rotary(config_) ? &rope_ : nullptr;
  for (auto& block : h) x = block.forward(x, ctx, mask, rope);
  xf_ = ln_f.forward(x);
  return xf_;
}

Tensor GPT::forward(const int32_t* ids, int64_t B, int64_t T, const nn::Context& ctx,
                    const ops::AttentionMask* padding_mask) {
  const int64_t C = config_.d_model, V = config_.vocab_size;
  forward_hidden(ids, B, T, ctx, padding_mask);
  logits_.ensure_shape({B, T, V}, device_);
  on(xf_).linear_forward(xf_.data(), head_weight().value.data(),
                         config_.head_bias ? lm_head_bias.value.data() : nullptr, logits_.data(),
                         B * T, C, V);
  return logits_;
}

double GPT::forward_loss(const int32_t* ids, const int32_t* targets, int64_t B, int64_t T,
                         const nn::Context& ctx) {
  forward(ids, B, T, ctx);
  dlogits_.ensure_shape(logits_.shape(), device_);
  return on(logits_).cross_entropy(logits_.data(), targets_.on(device_, targets, B * T),
                                   dlogits_.data(), B * T, config_.vocab_size, kIgnoreIndex);
}

void GPT::backward(float loss_scale) {
  require(dlogits_.defined() && logits_.defined(), "GPT::backward before forward_loss");
  const int64_t B = B_, T = T_, C = config_.d_model, V = config_.vocab_size;
  if (loss_scale != 1.0f) on(dlogits_).scale(dlogits_.data(), dlogits_.numel(), loss_scale);

  dxf_.ensure_shape({B, T, C}, device_);
  const bool body = body_trains();
  on(dlogits_).linear_backward(dlogits_.data(), xf_.data(), head_weight().value.data(),
                               body ? dxf_.data() : nullptr, head_weight().grad_or_null(),
                               lm_head_bias.grad_or_null(), B * T, C, V);
  if (body) backward_hidden(dxf_);
}

namespace {
// Checked every backward, so without building a parameter list (the memory plan).
bool trains(const Parameter& p) {
  return p.trainable();
}
bool trains(const nn::Linear& l) {
  return l.weight.trainable() || l.bias.trainable() || l.adapter;
}
bool trains(const nn::Norm& n) {
  return n.weight.trainable() || n.bias.trainable();
}
bool trains(const nn::MultiHeadAttention& a) {
  if (a.fused()) return trains(a.c_attn) || trains(a.c_proj);
  return trains(a.q_proj) || trains(a.k_proj) || trains(a.v_proj) || trains(a.c_proj) ||
         (a.qk_norm() && (trains(a.q_norm) || trains(a.k_norm)));
}
bool trains(const nn::FeedForward& f) {
  return trains(f.c_fc) || trains(f.c_proj) || (f.gated() && trains(f.gate));
}
bool trains(const nn::TransformerBlock& b) {
  return trains(b.ln_1) || trains(b.attn) || trains(b.ln_2) || trains(b.mlp);
}
}  // namespace

int64_t GPT::lowest_trained_block() const {
  if (trains(wte.weight) || (wpe.learned() && trains(wpe.weight))) return -1;
  for (size_t i = 0; i < h.size(); ++i)
    if (trains(h[i])) return static_cast<int64_t>(i);
  return static_cast<int64_t>(h.size());
}

bool GPT::body_trains() const {
  return trains(ln_f) || lowest_trained_block() < static_cast<int64_t>(h.size());
}

void GPT::backward_hidden(const Tensor& dhidden) {
  require(xf_.defined(), "GPT::backward_hidden before forward_hidden");
  const int64_t B = B_, T = T_, C = config_.d_model;
  check_shape(dhidden, {B, T, C}, "GPT::backward_hidden: d(hidden)");
  if (!body_trains()) return;
  const int64_t lowest = lowest_trained_block();
  Tensor dx = ln_f.backward(dhidden);
  for (int64_t i = static_cast<int64_t>(h.size()) - 1; i >= std::max<int64_t>(lowest, 0); --i)
    dx = h[i].backward(dx);
  if (lowest >= 0) return;  // the embeddings are frozen: nothing below to update
  dx = embd_drop_.backward(dx);

  // x0 = tok + pos: dtok = dx, dpos = sum over the batch of dx
  wte.backward(dx.reshaped({B * T, C}));
  if (rotary(config_)) return;
  dpos_.ensure_shape({T, C}, device_);
  on(dx).sum_over_batch(dx.data(), dpos_.data(), B, T * C);
  wpe.backward(dpos_);
}

nn::BufferPlan GPT::plan_buffers(const GPTConfig& c, const nn::StepShape& s,
                                 bool embeddings_train) {
  using nn::BufferUse;
  const nn::Width C{"C", c.d_model};
  const ModelNames names = model_names(c);
  nn::BufferPlan plan;
  nn::Embedding::plan_buffers(plan, names.wte, C, s);
  if (!rotary(c)) {
    nn::PositionalEncoding::plan_buffers(plan, "wpe", C, s);
    plan.add_rows(BufferUse::kForward, "x0 = tok + pos", s, C);
  }
  nn::Dropout::plan_buffers(plan, "embd_drop", C, s, s.training && c.dropout > 0.0f,
                            embeddings_train);
  const size_t first_block = plan.buffers.size();
  nn::TransformerBlock::plan_buffers(plan, std::string(names.blocks) + ".*", block_config(c), s);
  plan.repeat_since(first_block, c.n_layer);
  nn::Norm::plan_buffers(plan, names.ln_f, C, s);
  plan.add_rows(BufferUse::kForward, "logits, dlogits (forward_loss)", s, {"V", c.vocab_size}, 2);
  plan.add_rows(BufferUse::kBackward, "head: dxf", s, C);
  if (embeddings_train && !rotary(c))
    plan.add(BufferUse::kBackward, "dpos (batch sum)", "[T, C]", s.T * C.n);
  nn::MultiHeadAttention::plan_backward_buffers(plan, block_config(c), s);
  return plan;
}

ParameterList GPT::parameters() {
  ParameterList list;
  const ModelNames names = model_names(config_);
  wte.parameters(list, std::string(names.wte) + ".");
  if (!rotary(config_)) wpe.parameters(list, "wpe.");
  for (size_t i = 0; i < h.size(); ++i)
    h[i].parameters(list, std::string(names.blocks) + "." + std::to_string(i) + ".");
  ln_f.parameters(list, std::string(names.ln_f) + ".");
  if (!config_.tie_head) list.push_back({"lm_head.weight", &lm_head_weight});
  if (config_.head_bias) list.push_back({"lm_head.bias", &lm_head_bias});
  return list;
}

int64_t GPT::num_parameters() {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.param->value.numel();
  return n;
}

void GPT::zero_grad() {
  for (const auto& p : parameters())
    if (p.param->trainable()) p.param->grad.zero();
}

}  // namespace tinylm
