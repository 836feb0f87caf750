// The weights a prompt reads. A prompt's products have many input rows (one per prompt
// token), so they are bound by arithmetic, not by memory; what slows them is a GEMM
// re-packing the weight matrix into its panels on every call. A packed copy, made once
// for inference (ops/linear_packed.h), is read in place instead: the float32 weights in
// another order, each output summed in a fixed order, so a row's result does not depend
// on the other rows. It costs 4 bytes per weight (GPT-2 124M: 340 MB for the blocks'
// matrices), and is read by products of more than ops::kRowInvariantMaxRows rows on the
// CPU; fewer rows read the decode copy (decode/decode_weights.h) or the float32 weights.
#pragma once
#include <cstdint>

#include "tensor/tensor.h"
#include "util/aligned.h"

namespace tinylm::decode {

// A packed copy of one weight matrix W [out, in] for prompts.
class PromptCopy {
 public:
  // Replaces the copy by one of w (a CPU tensor [out, in]); none for another device.
  void make(const Tensor& w);
  bool empty() const { return panels_.empty(); }
  // Whether a product of `rows` input rows reads the copy.
  bool serves(int64_t rows) const;
  // y [rows, out] = x [rows, in] W^T + b (b may be null), from the copy.
  void forward(const float* x, const float* b, float* y, int64_t rows) const;
  int64_t bytes() const { return static_cast<int64_t>(panels_.size() * sizeof(float)); }

 private:
  int64_t in_ = 0, out_ = 0;
  AlignedVector<float> panels_;  // ops::packed_floats(out, in)
};

}  // namespace tinylm::decode
