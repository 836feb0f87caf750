// Memory of one training step in float32 (4 bytes per element), in closed form for
// batch B and sequence length T, derived from what tinylm's modules actually keep
// (src/nn/*.cpp, src/model/gpt.cpp). B*T*C below is written BTC.
//   weights:   parameters, gradients (allocated with every Parameter), AdamW m and v,
//              and the fixed sinusoidal position table when used.
//   forward:   tensors a forward_loss leaves alive for backward. Linear keeps a handle
//              to its input (no copy) and owns its output; LayerNorm owns y, mean, rstd;
//              MultiHeadAttention owns q, k, v, y [B, H, T, dh], the merged heads, and,
//              when training, only each row's log-sum-exp [B, H, T] (the tiled kernel
//              recomputes the weights and dropout's mask in backward; att [B, H, T, T]
//              outside training); FeedForward owns the activation output; the block owns
//              its two residual sums; GPT owns x0, logits and dlogits [B, T, V].
//              Dropout (training, p > 0) owns a mask and an output per use.
//   backward:  gradient buffers each module reuses from step to step (Linear dx,
//              LayerNorm dx, FeedForward d(pre-activation), the block's dh and dx,
//              GPT's dxf and dpos).
//   transient: used within backward only: MultiHeadAttention's dy, dq, dk, dv and dqkv,
//              one set shared by every block, kept between steps (the memory plan).
// Per block, training with dropout off: forward 14 BTC + 2 BTF + B H T + 4 BT,
// backward 7 BTC + 2 BTF, transient 7 BTC (F = d_ff).
// A LoRA run (docs/finetune.md) freezes every weight: frozen parameters have no gradient
// buffer and no AdamW moments. Only the adapters train: per adapted layer [in -> out],
// A [r, in] and B [out, r] with their gradients and moments, and the buffers
// LoraAdapter keeps (src/lora/lora.cpp): u, du [BT, r], and with adapter dropout the
// dropped input xd, its byte mask and dxd [BT, in]. Backward stops above the frozen
// embeddings: no dpos, no embedding dropout dx.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace tinylm::report {

// The LoRA adapters a run trains beside its frozen weights (lora/lora.h), one layer per
// adapted nn::Linear; built from the run's config by the caller (report does not link lora).
struct AdapterLayer {
  std::string module;  // "transformer.h.0.attn.c_attn"
  int64_t in = 0, out = 0;
};

struct LoraAdapters {
  int64_t r = 0;
  float dropout = 0;
  std::string description;           // "LoRA r 16 on c_attn, c_proj, c_fc"
  std::vector<AdapterLayer> layers;  // model order
  int64_t parameters() const;        // sum of r (in + out)
};

enum class MemorySection { Weights, Forward, Backward, Transient };

struct MemoryRow {
  MemorySection section = MemorySection::Forward;
  std::string component;  // "attention weights att"
  std::string shape;      // "[B, H, T, T]"
  int64_t elems = 0;      // 4-byte elements (float32; token ids are int32) of one instance
  int64_t copies = 1;     // n_layer for per-block rows
  int64_t bytes() const { return 4 * elems * copies; }
};

struct MemoryEstimate {
  int64_t batch = 0, seq = 0;
  bool training = true;  // dropout buffers exist only when training with p > 0
  std::vector<MemoryRow> rows;
  // Bytes.
  int64_t parameters = 0, gradients = 0, optimizer = 0, buffers = 0;  // weights: frozen + adapters
  int64_t forward = 0, backward = 0, transient = 0;
  int64_t activations() const { return forward + backward + transient; }
  // Peak of one forward_loss + backward (what a model without optimizer holds).
  int64_t step_peak() const { return parameters + gradients + buffers + activations(); }
  // Peak of a training step with AdamW.
  int64_t training_peak() const { return step_peak() + optimizer; }
};

// Throws InputError for an invalid config or batch shape (see check_batch_shape).
// lora: the adapters of a LoRA run (every weight of the model frozen), or null.
MemoryEstimate estimate_memory(const GPTConfig& c, int64_t B, int64_t T, bool training = true,
                               const LoraAdapters* lora = nullptr);

}  // namespace tinylm::report
