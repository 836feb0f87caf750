// Rotary position embeddings' tables, shared by every attention layer of a model: the
// cosines and sines of position p's angles p * inv_freq[i] (ops/rope.h), for positions
// 0 .. max_len-1 and the D/2 frequencies of a head of width D.
//   rotate:      x [S, T, D] at positions pos0 .. pos0+T-1 -> rotated, in place
//   rotate_back: the transpose (backward): d [S, T, D] rotated back, in place
#pragma once
#include "ops/rope.h"
#include "tensor/tensor.h"

namespace tinylm::nn {

class RotaryTables {
 public:
  RotaryTables() = default;
  // scaling.factor 0: no Llama 3 scaling.
  RotaryTables(float theta, const ops::Llama3RopeScaling& scaling, int64_t head_dim,
               int64_t max_len);

  void to(Device device);
  void rotate(Tensor& x, int64_t S, int64_t T, int64_t pos0) const;
  void rotate_back(Tensor& d, int64_t S, int64_t T, int64_t pos0) const;
  int64_t head_dim() const { return head_dim_; }
  const Tensor& cos() const { return cos_; }  // [max_len, D/2]
  const Tensor& sin() const { return sin_; }

 private:
  int64_t head_dim_ = 0;
  Tensor cos_, sin_;
};

}  // namespace tinylm::nn
