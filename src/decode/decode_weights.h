// The weights a decoding step reads. Decoding one token reads every weight once, so it is
// bound by memory bandwidth; a compact copy of a weight matrix, made once for inference,
// cuts the bytes read per token:
//   f32   the float32 weights themselves (no copy)
//   f16   IEEE half copies (ops/f16.h): half the bytes, products in float32; an F16
//         GGUF file's own numbers
//   bf16  bfloat16 copies (ops/bf16.h): half the bytes, products in float32
//   q8_0  ggml's Q8_0 blocks (ops/q8_0.h): 34 bytes per 32 weights (27 % of float32),
//         integer products with the input quantised per block, as llama.cpp runs Q8_0
// A copy is read by products of up to ops::kRowInvariantMaxRows rows: decode steps (one
// row per sequence of a batch) and short prompts. Both kernels compute each row alone, so
// a sequence decoded in a batch gets exactly what it gets alone. More rows (a long prompt,
// training, evaluation) read the float32 weights, which stay as they are. A matrix whose
// rows are not whole blocks of 32 gets no q8_0 copy (float32 is read).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"
#include "util/aligned.h"

namespace tinylm::decode {

enum class DecodeWeights { kF32, kF16, kBf16, kQ8_0 };

const char* decode_weights_name(DecodeWeights type);  // "f32", "f16", "bf16", "q8_0"
// InputError naming the value and the choices for anything else.
DecodeWeights parse_decode_weights(std::string_view name);

// A copy of one weight matrix W [out, in] for decoding.
class DecodeCopy {
 public:
  // Replaces the copy by one of w (a CPU tensor [out, in]) in `type`: none for f32 or for
  // another device (the float32 weights are read), none for q8_0 when in is not a
  // multiple of 32.
  void make(const Tensor& w, DecodeWeights type);
  void clear() { make(Tensor(), DecodeWeights::kF32); }
  bool empty() const { return f16_.empty() && bf16_.empty() && q8_.empty(); }
  // Whether a product of `rows` input rows reads the copy.
  bool serves(int64_t rows) const;
  // y [rows, out] = x [rows, in] W^T + b (b may be null), from the copy.
  void forward(const float* x, const float* b, float* y, int64_t rows) const;
  int64_t bytes() const;  // the copy's size

 private:
  int64_t in_ = 0, out_ = 0;
  // On 64-byte boundaries (util/aligned.h), as the float32 weights are.
  AlignedVector<uint16_t> f16_;   // [out, in]
  AlignedVector<uint16_t> bf16_;  // [out, in]
  AlignedVector<int8_t> q8_;      // [out, in], Q8_0 values (ops/q8_0.h)
  AlignedVector<uint16_t> q8_d_;  // [out, in / 32], their half scales
};

}  // namespace tinylm::decode
