// A backend: the kernels of one device in one table, so that nn/ and model/ ask for
// "layer norm on the device of this tensor" and never name a device (a thin dispatch:
// one indirect call per kernel, no graph). Every entry has the contract of its ops/
// header (shapes there); every pointer is memory of the backend's device.
//   "cpu"   the fast kernels of ops/ (the default for CPU tensors)
//   "ref"   ops::ref, the readable twins every other backend is tested against
//   "cuda"  src/cuda, in a build with CUDA (only usable with a GPU); it has every entry
//           but the F16, Q8_0 and packed ones (inference copies are a CPU path)
// A table may leave an entry missing (Kernel{"name"}): calling it throws naming the
// kernel, and the op table test has no case of it on that backend.
// backend/registry.h finds them; tests/backend/op_table_test.cpp runs every registered
// backend against "ref".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backend/kernel.h"
#include "ops/activation.h"
#include "ops/adamw.h"
#include "ops/attention.h"
#include "ops/clip.h"
#include "ops/layout.h"
#include "ops/precision.h"
#include "tensor/device.h"

namespace tinylm {

struct Backend {
  const char* name = "";
  Device device = Device::kCpu;
  // Whether it can run here; if not, the reason in *why (cuda: no GPU or no driver).
  bool (*available)(std::string* why) = nullptr;
  // The device's float32 peak in FLOP/s, for MFU (null: the CPU's, measured by report/).
  double (*peak_flops)() = nullptr;
  // How its matrix products compute from now on (ops/precision.h; the cpu: its linear
  // layers, fp32 or bf16, ops/matmul_bf16.h); null: fp32 only.
  void (*set_matmul_precision)(ops::MatmulPrecision) = nullptr;

  // ops/matmul.h (C = alpha op(A) op(B) + beta C; the linear layer, PyTorch layout)
  Kernel<void(const float*, const float*, float*, int64_t, int64_t, int64_t, bool, bool, float,
              float)>
      matmul{"matmul"};
  Kernel<void(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t)>
      linear_forward{"linear_forward"};
  Kernel<void(const float*, const float*, const float*, float*, float*, float*, int64_t, int64_t,
              int64_t)>
      linear_backward{"linear_backward"};
  // ops/matmul_bf16.h (the contract of matmul, operands rounded to bf16, float32 sums)
  Kernel<void(const float*, const float*, float*, int64_t, int64_t, int64_t, bool, bool, float,
              float)>
      matmul_bf16{"matmul_bf16"};
  // ops/bf16.h (weights rounded to bf16 once, products with float32 activations)
  Kernel<void(const float*, uint16_t*, int64_t)> to_bf16{"to_bf16"};
  Kernel<void(const float*, const uint16_t*, const float*, float*, int64_t, int64_t, int64_t)>
      linear_forward_bf16{"linear_forward_bf16"};
  // ops/f16.h (weights as IEEE halves, products with float32 activations)
  Kernel<void(const float*, uint16_t*, int64_t)> to_f16{"to_f16"};
  Kernel<void(const float*, const uint16_t*, const float*, float*, int64_t, int64_t, int64_t)>
      linear_forward_f16{"linear_forward_f16"};
  // ops/q8_0.h (weights as ggml's Q8_0 blocks, integer products with x quantised per block)
  Kernel<void(const float*, int8_t*, uint16_t*, int64_t, int64_t)> quantize_q8_0{"quantize_q8_0"};
  Kernel<void(const float*, const int8_t*, const uint16_t*, const float*, float*, int64_t, int64_t,
              int64_t)>
      linear_forward_q8_0{"linear_forward_q8_0"};
  // ops/linear_packed.h (weights packed once into a GEMM's panels, for prompts)
  Kernel<void(const float*, float*, int64_t, int64_t)> pack_linear{"pack_linear"};
  Kernel<void(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t)>
      linear_forward_packed{"linear_forward_packed"};

  // ops/layernorm.h
  Kernel<void(const float*, const float*, const float*, float*, float*, float*, int64_t, int64_t,
              float)>
      layernorm_forward{"layernorm_forward"};
  Kernel<void(const float*, const float*, const float*, const float*, const float*, float*, float*,
              float*, int64_t, int64_t)>
      layernorm_backward{"layernorm_backward"};
  // ops/rmsnorm.h
  Kernel<void(const float*, const float*, float*, float*, int64_t, int64_t, float)> rmsnorm_forward{
      "rmsnorm_forward"};
  Kernel<void(const float*, const float*, const float*, const float*, float*, float*, int64_t,
              int64_t)>
      rmsnorm_backward{"rmsnorm_backward"};
  // ops/rope.h
  Kernel<void(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t, int64_t)>
      rope_forward{"rope_forward"};
  Kernel<void(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t, int64_t)>
      rope_backward{"rope_backward"};
  // ops/swiglu.h
  Kernel<void(const float*, const float*, float*, int64_t)> swiglu_forward{"swiglu_forward"};
  Kernel<void(const float*, const float*, const float*, float*, float*, int64_t)> swiglu_backward{
      "swiglu_backward"};

  // ops/activation.h
  Kernel<void(ops::Activation, const float*, float*, int64_t)> activation_forward{
      "activation_forward"};
  Kernel<void(ops::Activation, const float*, const float*, float*, int64_t)> activation_backward{
      "activation_backward"};

  // ops/softmax.h
  Kernel<void(const float*, float*, int64_t, int64_t)> softmax_forward{"softmax_forward"};
  Kernel<void(const float*, const float*, float*, int64_t, int64_t)> softmax_backward{
      "softmax_backward"};

  // ops/attention.h: the weights kept (decoding, dropout, the attention maps) ...
  Kernel<void(const float*, const float*, const float*, float*, float*, const ops::AttentionShape&,
              float, const ops::AttentionMask&, float, float*, uint64_t)>
      attention_forward{"attention_forward"};
  Kernel<void(const float*, const float*, const float*, const float*, const float*, const float*,
              float*, float*, float*, const ops::AttentionShape&, float)>
      attention_backward{"attention_backward"};
  // ... or recomputed from the rows' log-sum-exp, the dropout mask from its key (training)
  Kernel<void(const float*, const float*, const float*, float*, float*, const ops::AttentionShape&,
              float, const ops::AttentionMask&, float, uint64_t)>
      attention_forward_tiled{"attention_forward_tiled"};
  Kernel<void(const float*, const float*, const float*, const float*, const float*, const float*,
              float*, float*, float*, const ops::AttentionShape&, float, const ops::AttentionMask&,
              float, uint64_t)>
      attention_backward_tiled{"attention_backward_tiled"};

  // ops/embedding.h, ops/dropout.h
  Kernel<void(const int32_t*, const float*, float*, int64_t, int64_t, int64_t)> embedding_forward{
      "embedding_forward"};
  Kernel<void(const float*, const int32_t*, float*, int64_t, int64_t, int64_t)> embedding_backward{
      "embedding_backward"};
  Kernel<void(const float*, float*, float*, int64_t, float, uint64_t)> dropout_forward{
      "dropout_forward"};
  Kernel<void(const float*, const float*, float*, int64_t)> dropout_backward{"dropout_backward"};

  // ops/cross_entropy.h: the mean loss over the rows whose target is not ignore_index
  Kernel<double(const float*, const int32_t*, float*, int64_t, int64_t, int32_t)> cross_entropy{
      "cross_entropy"};

  // ops/layout.h: layouts (heads, positions) and the sums that join layers
  Kernel<void(const float*, const float*, float*, int64_t)> add{"add"};
  Kernel<void(float*, int64_t, float)> scale{"scale"};
  Kernel<void(const float*, float*, int64_t)> copy{"copy"};
  Kernel<void(const float*, float*, float*, float*, int64_t, int64_t, int64_t, int64_t)>
      split_heads{"split_heads"};
  Kernel<void(const float*, const float*, const float*, float*, int64_t, int64_t, int64_t, int64_t)>
      join_heads{"join_heads"};
  Kernel<void(const float*, float*, int64_t, int64_t, int64_t, int64_t)> heads_to_rows{
      "heads_to_rows"};
  Kernel<void(const float*, float*, int64_t, int64_t, int64_t, int64_t)> rows_to_heads{
      "rows_to_heads"};
  Kernel<void(const float*, float*, int64_t, int64_t, int64_t, int64_t)> repeat_kv{"repeat_kv"};
  Kernel<void(const float*, float*, int64_t, int64_t, int64_t, int64_t)> sum_kv_groups{
      "sum_kv_groups"};
  Kernel<void(const float*, const float*, float*, int64_t, int64_t, int64_t)> add_positions{
      "add_positions"};
  Kernel<void(const float*, float*, int64_t, int64_t)> sum_over_batch{"sum_over_batch"};

  // ops/adamw.h, ops/clip.h
  Kernel<void(float*, const float*, float*, float*, int64_t, const ops::AdamWHyper&, int64_t)>
      adamw_update{"adamw_update"};
  Kernel<void(const std::vector<ops::AdamWSpan>&, const ops::AdamWHyper&, int64_t)>
      adamw_update_spans{"adamw_update_spans"};
  Kernel<double(const std::vector<ops::GradSpan>&, double)> clip_grad_norm{"clip_grad_norm"};
};

}  // namespace tinylm
