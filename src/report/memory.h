// Memory of one training step in float32 (4 bytes per element) for batch B and sequence
// length T, without allocating anything:
//   weights:   parameters, gradients (allocated with every Parameter), AdamW m and v,
//              and the fixed sinusoidal position table when used.
//   forward, backward, transient: the buffers the model's modules say a step keeps
//              (GPT::plan_buffers: each module lists its own, nn/buffer_plan.h), one row
//              each, a block's with n_layer copies. Per block, training with dropout off:
//              forward 14 BTC + 2 BTF + B H T + 4 BT, backward 7 BTC + 2 BTF; attention
//              backward's work buffers 7 BTC once (BTC = B*T*C, F = d_ff).
// A LoRA run (docs/finetune.md) freezes every weight: frozen parameters have no gradient
// buffer and no AdamW moments. Only the adapters train: per adapted layer [in -> out],
// A [r, in] and B [out, r] with their gradients and moments, and the buffers each
// adapter lists (LoraAdapter::plan_buffers): u, du [BT, r], and with adapter dropout the
// dropped input xd, its byte mask and dxd [BT, in]. Backward stops above the frozen
// embeddings: no dpos, no embedding dropout dx.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace tinylm::report {

// The LoRA adapters a run trains beside its frozen weights (lora/lora.h), one layer per
// adapted nn::Linear; built from the run's config by the caller.
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
