// GPT: a decoder-only transformer language model.
//   ids [B, T] -> x = wte(ids) + wpe(0..T-1)      [B, T, C]   (then dropout)
//              -> L transformer blocks (causal)   [B, T, C]
//              -> ln_f                            [B, T, C]
//              -> logits = x W_head^T (+ b)       [B, T, V]   W_head = wte.weight when tied
// Parameters are named as in Hugging Face's GPT2LMHeadModel without the "transformer."
// prefix ("wte.weight", "h.0.attn.c_attn.weight", ..., "ln_f.weight", "lm_head.weight"
// when untied), but stored in PyTorch Linear layout [out, in].
// The llama family (config.arch): no position table (RoPE inside attention, one set of
// tables for all layers), RMSNorms, and Hugging Face's LlamaForCausalLM names without
// "model." ("embed_tokens.weight", "layers.0.self_attn.q_proj.weight", ...,
// "norm.weight", "lm_head.weight").
// Frozen parameters (Parameter::set_trainable(false), for fine-tuning) get no gradient
// work, and backward stops at the lowest block that has something to train.
// Inference with KV caches runs in a decoding context beside the model
// (decode/decode_context.h), which keeps the weight copies and buffers decoding needs.
#pragma once
#include <vector>

#include "model/config.h"
#include "nn/embedding.h"
#include "nn/positional_encoding.h"
#include "nn/rotary.h"
#include "nn/transformer_block.h"
#include "tensor/device_ids.h"

namespace tinylm {

class GPT {
 public:
  // Validates the config. Parameters start at LayerNorm defaults and zeros elsewhere;
  // call init() for GPT-2's random initialisation.
  explicit GPT(const GPTConfig& config);

  // GPT-2 initialisation: normal(0, 0.02) for weights and embeddings, residual output
  // projections (attn.c_proj, mlp.c_proj) normal(0, 0.02 / sqrt(2 L)), zero biases.
  void init(Rng& rng);

  // Moves every weight (and gradient) to `device`; from then on the model computes there
  // (backend/: the kernels of that device). Ids and targets stay host arrays (copied
  // over per call); forward() and forward_hidden() return tensors on the device. Checkpoints are
  // written from host copies (run/checkpoint.h), so one file serves every device.
  void to(Device device);
  Device device() const { return device_; }

  // ids [B, T] (T <= block_size) -> logits [B, T, V]. The returned tensor is the model's
  // own buffer: valid until the next forward. padding_mask: optional additive mask
  // [B or 1, T, T] combined with the causal mask.
  Tensor forward(const int32_t* ids, int64_t B, int64_t T, const nn::Context& ctx = {},
                 const ops::AttentionMask* padding_mask = nullptr);

  // The body alone (what a classification head reads): ids [B, T] -> ln_f output
  // [B, T, C], the model's own buffer (valid until the next forward).
  Tensor forward_hidden(const int32_t* ids, int64_t B, int64_t T, const nn::Context& ctx = {},
                        const ops::AttentionMask* padding_mask = nullptr);

  // Backpropagates d(loss)/d(hidden) [B, T, C] of the last forward_hidden through the body,
  // accumulating into the gradients of the trainable parameters. Blocks below the lowest
  // one that trains (a trainable parameter or an attached adapter) are not visited.
  void backward_hidden(const Tensor& dhidden);

  // Does backpropagation need to reach the body (below the head) at all?
  bool body_trains() const;

  // forward, then the mean cross-entropy against targets [B, T] (ops::kIgnoreIndex
  // entries are skipped). Keeps d(loss)/d(logits) for backward().
  double forward_loss(const int32_t* ids, const int32_t* targets, int64_t B, int64_t T,
                      const nn::Context& ctx = {});

  // Backpropagates the loss of the last forward_loss, accumulating into every .grad.
  // loss_scale multiplies the loss first (1/k when accumulating k micro-batches).
  void backward(float loss_scale = 1.0f);
  void zero_grad();

  ParameterList parameters();
  // What a step of s keeps (nn/buffer_plan.h), from the config alone (nothing is
  // allocated): every module's buffers, a block's once with n_layer copies, x0, the
  // logits and dlogits, dxf and dpos, and attention backward's shared set. With
  // embeddings_train false (frozen embeddings, a LoRA run) backward stops above them: no
  // embedding dropout dx, no dpos.
  static nn::BufferPlan plan_buffers(const GPTConfig& c, const nn::StepShape& s,
                                     bool embeddings_train = true);
  int64_t num_parameters();  // each tensor once (a tied head is not counted again)
  const GPTConfig& config() const { return config_; }

  nn::Embedding wte;                    // llama: embed_tokens
  nn::PositionalEncoding wpe;           // rotary positions: an empty table, not a parameter
  std::vector<nn::TransformerBlock> h;  // llama: layers
  nn::Norm ln_f;                        // llama: norm
  // The rotary tables [block_size, D/2] every layer's attention reads (rotary only).
  const nn::RotaryTables& rope() const { return rope_; }
  Parameter lm_head_weight;  // [V, C], only when the head is untied
  Parameter lm_head_bias;    // [V], only with head_bias
  // The head's matrix [V, C]: the token embedding when the head is tied, else
  // lm_head_weight.
  Parameter& head_weight() { return config_.tie_head ? wte.weight : lm_head_weight; }
  const Parameter& head_weight() const { return config_.tie_head ? wte.weight : lm_head_weight; }

 private:
  // -1 when the embeddings train (backward goes all the way down), else the index of the
  // lowest block that trains, n_layer when none does.
  int64_t lowest_trained_block() const;

  GPTConfig config_;
  Device device_ = Device::kCpu;
  nn::RotaryTables rope_;  // rotary positions only
  DeviceIds targets_;      // the last forward_loss's targets on the device
  nn::Dropout embd_drop_;
  int64_t B_ = 0, T_ = 0;
  // Every buffer a step writes, kept from step to step (the memory plan). Decoding's are
  // its context's (decode/decode_context.h).
  Tensor x0_, xf_, logits_, dlogits_, dxf_, dtok_, dpos_;
};

}  // namespace tinylm
