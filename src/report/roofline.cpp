// Roofline, step time, memory fit and decoding cost of a model on a device (roofline.h).
#include "report/roofline.h"

#include <algorithm>
#include <cstdio>

#include "report/block_layers.h"
#include "report/flops.h"
#include "report/memory.h"
#include "report/param_table.h"
#include "report/text_table.h"
#include "util/error.h"

namespace tinylm::report {

namespace {

std::string num(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string seconds_text(double s) {
  if (s >= 1) return num("%.2f s", s);
  if (s >= 1e-3) return num("%.2f ms", s * 1e3);
  return num("%.1f us", s * 1e6);
}

std::string rate(double flops_per_s) {
  return human_flops(flops_per_s) + "/s";
}

// Which of the two step times sets the prediction.
std::string step_bound_text(const DeviceAnalysis& a) {
  return a.floor_governs ? "the roofline floor governs: too little work per byte for that MFU"
                         : "the MFU time governs";
}

}  // namespace

DeviceAnalysis analyse_on_device(const GPTConfig& c, int64_t B, int64_t T, const Device& d,
                                 const std::string& precision, double utilization) {
  check_batch_shape(c, B, T);
  require(precision == "fp32" || precision == "bf16", "--precision must be fp32 or bf16");
  require(utilization > 0 && utilization <= 1, "--utilization must be in (0, 1]");
  DeviceAnalysis a;
  a.device = d;
  a.precision = precision;
  a.batch = B;
  a.seq = T;
  a.peak = precision == "fp32" ? d.fp32_flops : d.bf16_flops;
  require(a.peak > 0, "--device " + d.name + " has no " + precision + " rate (use fp32)");
  a.ridge = a.peak / d.bandwidth;
  const double elem = precision == "fp32" ? 4 : 2;
  const int64_t C = c.d_model, V = c.vocab_size, H = c.n_head, L = c.n_layer;
  const int64_t dh = c.head_size(), BT = B * T;
  // The block's linear layers (the projections in, attention's products, the one out,
  // the feed-forward's), then the head.
  const BlockLayers block = block_layers(c);
  const auto linear = [&](const BlockLinear& l) {
    return MatmulRoof{l.component, BT, l.out, l.in, 1, L};
  };
  for (size_t i = 0; i + 1 < block.attention.size(); ++i)
    a.products.push_back(linear(block.attention[i]));
  a.products.push_back({"scores Q K^T (per row, head)", T, T, dh, B * H, L});
  a.products.push_back({"att @ V (per row, head)", T, dh, T, B * H, L});
  a.products.push_back(linear(block.attention.back()));
  for (const BlockLinear& l : block.mlp) a.products.push_back(linear(l));
  a.products.push_back({"head (logits)", BT, V, C, 1, 1});
  double forward_flops = 0, forward_seconds = 0;
  for (MatmulRoof& p : a.products) {
    const double n = static_cast<double>(p.count * p.copies);
    const double M = static_cast<double>(p.M), N = static_cast<double>(p.N),
                 K = static_cast<double>(p.K);
    p.flops = 2 * M * N * K * n;
    p.bytes = (M * K + K * N + M * N) * elem * n;
    p.intensity = p.flops / p.bytes;
    p.compute_bound = p.intensity >= a.ridge;
    p.seconds = std::max(p.flops / a.peak, p.bytes / d.bandwidth);
    forward_flops += p.flops;
    forward_seconds += p.seconds;
  }
  a.train_flops = 3 * forward_flops;
  a.roofline_step_seconds = 3 * forward_seconds;
  a.utilization = utilization;
  a.mfu_step_seconds = a.train_flops / (a.peak * utilization);
  // No implementation beats the roofline floor, whatever MFU is assumed.
  a.floor_governs = a.roofline_step_seconds > a.mfu_step_seconds;
  a.predicted_step_seconds = std::max(a.mfu_step_seconds, a.roofline_step_seconds);
  a.tokens_per_second = static_cast<double>(BT) / a.predicted_step_seconds;

  const MemoryEstimate m = estimate_memory(c, B, T, true);
  const ParamTable params = param_table(c);
  const auto N = static_cast<double>(params.total);
  a.fp32_bytes = static_cast<double>(m.training_peak());
  a.bf16_bytes = 16 * N + static_cast<double>(m.activations()) / 2;
  a.fp32_fits = a.fp32_bytes <= d.memory;
  a.bf16_fits = a.bf16_bytes <= d.memory;

  // The cache holds the KV key/value heads; every query head reads its kv head's T keys.
  a.kv_cache_bytes = 2.0 * L * T * c.kv_heads() * dh * elem;
  a.decode_bytes = N * elem + a.kv_cache_bytes;
  a.decode_flops = 2 * N + 4.0 * L * T * H * dh;
  a.decode_seconds = std::max(a.decode_flops / a.peak, a.decode_bytes / d.bandwidth);
  return a;
}

std::string render_device_analysis(const DeviceAnalysis& a) {
  const Device& d = a.device;
  std::string out = "device " + d.name + ": " + d.description + "\n";
  out += "  peak " + rate(d.fp32_flops) + " fp32" +
         (d.bf16_flops > 0 ? ", " + rate(d.bf16_flops) + " bf16" : std::string()) + ", " +
         num("%.0f", d.bandwidth / 1e9) + " GB/s memory bandwidth, " + human_bytes(d.memory) +
         " memory" + (d.measured ? " (measured)" : "") + "\n";
  out += "  " + a.precision + ": ridge point " + num("%.1f", a.ridge) +
         " FLOP/byte (a product above it is compute-bound)\n\n";
  out += "roofline of the forward matrix products, batch " + std::to_string(a.batch) + ", T " +
         std::to_string(a.seq) + " (all layers; backward repeats each twice):\n";
  TextTable t({"product", "M x N x K", "count", "FLOPs", "FLOP/byte", "bound", "time"},
              {false, false, true, true, true, false, true});
  for (const MatmulRoof& p : a.products)
    t.add_row({p.name,
               std::to_string(p.M) + " x " + std::to_string(p.N) + " x " + std::to_string(p.K),
               with_commas(p.count * p.copies), human_flops(p.flops), num("%.1f", p.intensity),
               p.compute_bound ? "compute" : "memory", seconds_text(p.seconds)});
  out += t.render() + "\n";
  out += "training step: " + human_flops(a.train_flops) + "; roofline floor " +
         seconds_text(a.roofline_step_seconds) + "; at " + num("%.0f", 100 * a.utilization) +
         "% utilisation (MFU) " + seconds_text(a.mfu_step_seconds) + "; predicted " +
         seconds_text(a.predicted_step_seconds) + " per step (" + step_bound_text(a) + "), " +
         with_commas(static_cast<int64_t>(a.tokens_per_second)) + " tokens/s\n";
  out += "training memory: fp32 " + human_bytes(a.fp32_bytes) + " (" +
         (a.fp32_fits ? "fits" : "does NOT fit") + "), bf16 mixed " + human_bytes(a.bf16_bytes) +
         " (" + (a.bf16_fits ? "fits" : "does NOT fit") + ") in " + human_bytes(d.memory) + "\n";
  out += "one generated token at context " + std::to_string(a.seq) +
         " (batch 1, KV cache): " + "KV cache " + human_bytes(a.kv_cache_bytes) + ", reads " +
         human_bytes(a.decode_bytes) + ", " + human_flops(a.decode_flops) + " (" +
         num("%.2f", a.decode_flops / a.decode_bytes) +
         " FLOP/byte: " + (a.decode_flops / a.decode_bytes < a.ridge ? "memory" : "compute") +
         "-bound), at least " + seconds_text(a.decode_seconds) + " per token\n";
  return out;
}

}  // namespace tinylm::report
