// --f16, --bf16 and --q8: the weights decode steps read (decode/decode_weights.h), for the
// verbs that generate (generate, sample, respond, serve). With none, a GGUF file decodes at its
// own precision (Q8_0, F16 or BF16 copies of its weights) and every other model with its
// float32 weights.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>

#include "decode/decode_weights.h"
#include "open/open_model.h"

namespace tinylm::cli {

struct DecodeFlags {
  bool f16 = false, bf16 = false, q8 = false;
};

inline void add_decode_flags(CLI::App& app, DecodeFlags& flags) {
  auto* bf16 = app.add_flag("--bf16", flags.bf16,
                            "decode with bf16 copies of the weights (half the memory traffic; the "
                            "products stay float32; a long prompt uses the float32 weights)");
  auto* f16 = app.add_flag("--f16", flags.f16,
                           "decode with IEEE half copies of the weights (as an F16 file stores "
                           "them; half the memory traffic, products in float32)")
                  ->excludes(bf16);
  app.add_flag("--q8", flags.q8,
               "decode with 8-bit copies of the weights (ggml's Q8_0 blocks, integer products "
               "as llama.cpp computes a Q8_0 file; a long prompt uses the float32 weights)")
      ->excludes(bf16)
      ->excludes(f16);
}

// What the flags ask for (nullopt: neither given).
inline std::optional<decode::DecodeWeights> asked_decode_weights(const DecodeFlags& flags) {
  if (flags.f16) return decode::DecodeWeights::kF16;
  if (flags.bf16) return decode::DecodeWeights::kBf16;
  if (flags.q8) return decode::DecodeWeights::kQ8_0;
  return std::nullopt;
}

// What `model` decodes with: the flags' choice, else the model file's own precision.
inline decode::DecodeWeights chosen_decode_weights(const DecodeFlags& flags,
                                                   const OpenedModel& model) {
  return asked_decode_weights(flags).value_or(model.stored_decode_weights);
}

}  // namespace tinylm::cli
