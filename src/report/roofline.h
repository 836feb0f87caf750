// A model on a device (tinylm info --device NAME): the roofline of every matrix product
// of a training step, the predicted step time, whether training fits in the device's
// memory, and the cost of one generated token with a KV cache.
//
// Roofline (Williams et al. 2009): a product C[M, N] = A[M, K] B[K, N] does 2 M N K FLOPs
// and moves at least (M K + K N + M N) elements; its arithmetic intensity I = FLOPs /
// bytes. The device's ridge point is peak / bandwidth: a product with I above it is
// compute-bound (time = FLOPs / peak), below it memory-bound (time = bytes / bandwidth).
// The attention products run once per (batch row, head). Backward repeats each product
// twice at the same shapes, so a step is 3 x the forward products.
//
// MFU step time = training FLOPs / (peak x utilisation): utilisation is what a good
// implementation reaches (MFU), stated, not measured. The roofline time (sum of
// max(compute, memory) per product) is the floor no implementation beats. The predicted
// step time is the larger of the two: a small step (short sequences, small batch) is
// memory-bound, and then the floor governs, whatever MFU is assumed.
//
// Memory: float32 training keeps weights, gradients and AdamW's two moments (16 bytes per
// parameter) plus activations (memory.h). bf16 mixed precision keeps bf16 weights and
// gradients, an fp32 master copy and fp32 moments (2 + 2 + 4 + 8 = 16 bytes per
// parameter too) and halves the activations.
//
// Decoding one token at context length T with a KV cache (batch 1): every weight is read
// once and the cache of 2 x n_layer x T x d_model values; about 2 FLOPs per weight, so
// the intensity is near 1 FLOP/byte and decoding is memory-bound on every device here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "report/device.h"

namespace tinylm::report {

struct MatmulRoof {
  std::string name;
  int64_t M = 0, N = 0, K = 0, count = 1;  // count: products of this shape per layer
  int64_t copies = 1;                      // n_layer, or 1 for the head
  double flops = 0, bytes = 0;             // all copies, forward
  double intensity = 0;                    // FLOPs / byte
  bool compute_bound = false;
  double seconds = 0;  // forward, all copies: max(flops / peak, bytes / bandwidth)
};

struct DeviceAnalysis {
  Device device;
  std::string precision;  // "fp32" or "bf16"
  int64_t batch = 0, seq = 0;
  double peak = 0, ridge = 0;        // FLOP/s and FLOP/byte at that precision
  std::vector<MatmulRoof> products;  // forward, one row per product kind
  double train_flops = 0;            // per step (3 x forward matmul FLOPs)
  double roofline_step_seconds = 0;  // 3 x sum of the products' roofline times
  double utilization = 0;
  double mfu_step_seconds = 0;        // train_flops / (peak * utilization)
  double predicted_step_seconds = 0;  // max(mfu_step_seconds, roofline_step_seconds)
  bool floor_governs = false;         // the roofline floor is above the MFU time
  double tokens_per_second = 0;       // B * T / predicted step time
  // Memory of a training step, bytes.
  double fp32_bytes = 0, bf16_bytes = 0;
  bool fp32_fits = false, bf16_fits = false;
  // One generated token at context seq, batch 1, with a KV cache.
  double kv_cache_bytes = 0;  // 2 * n_layer * seq * d_model * element bytes
  double decode_bytes = 0;    // weights + KV cache read per token
  double decode_flops = 0;    // 2 * params + attention over the context
  double decode_seconds = 0;  // max(flops / peak, bytes / bandwidth)
};

// precision: "fp32" or "bf16" (bf16 needs a device with a bf16 rate). utilization in (0, 1].
DeviceAnalysis analyse_on_device(const GPTConfig& c, int64_t B, int64_t T, const Device& d,
                                 const std::string& precision, double utilization);
std::string render_device_analysis(const DeviceAnalysis& a);

}  // namespace tinylm::report
