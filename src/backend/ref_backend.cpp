// The reference kernels (ops::ref: naive loops, double sums) as a backend table: what
// tests/backend/op_table_test.cpp compares every other backend with.
#include "backend/registry.h"
#include "ops/bf16.h"
#include "ops/cross_entropy.h"
#include "ops/dropout.h"
#include "ops/embedding.h"
#include "ops/f16.h"
#include "ops/layernorm.h"
#include "ops/layout.h"
#include "ops/linear_packed.h"
#include "ops/matmul.h"
#include "ops/matmul_bf16.h"
#include "ops/q8_0.h"
#include "ops/rmsnorm.h"
#include "ops/rope.h"
#include "ops/softmax.h"
#include "ops/swiglu.h"

namespace tinylm {
namespace {
bool reference_always_available(std::string*) {
  return true;
}
}  // namespace

const Backend& ref_backend() {
  static const Backend table{
      .name = "ref",
      .device = Device::kCpu,
      .available = reference_always_available,
      .matmul = ops::ref::matmul,
      .linear_forward = ops::ref::linear_forward,
      .linear_backward = ops::ref::linear_backward,
      .matmul_bf16 = ops::ref::matmul_bf16,
      .to_bf16 = ops::ref::to_bf16,
      .linear_forward_bf16 = ops::ref::linear_forward_bf16,
      .to_f16 = ops::ref::to_f16,
      .linear_forward_f16 = ops::ref::linear_forward_f16,
      .quantize_q8_0 = ops::ref::quantize_q8_0,
      .linear_forward_q8_0 = ops::ref::linear_forward_q8_0,
      .pack_linear = ops::ref::pack_linear,
      .linear_forward_packed = ops::ref::linear_forward_packed,
      .layernorm_forward = ops::ref::layernorm_forward,
      .layernorm_backward = ops::ref::layernorm_backward,
      .rmsnorm_forward = ops::ref::rmsnorm_forward,
      .rmsnorm_backward = ops::ref::rmsnorm_backward,
      .rope_forward = ops::ref::rope_forward,
      .rope_backward = ops::ref::rope_backward,
      .swiglu_forward = ops::ref::swiglu_forward,
      .swiglu_backward = ops::ref::swiglu_backward,
      .activation_forward = ops::ref::activation_forward,
      .activation_backward = ops::ref::activation_backward,
      .softmax_forward = ops::ref::softmax_forward,
      .softmax_backward = ops::ref::softmax_backward,
      .attention_forward = ops::ref::attention_forward,
      .attention_backward = ops::ref::attention_backward,
      .attention_forward_tiled = ops::ref::attention_forward_tiled,
      .attention_backward_tiled = ops::ref::attention_backward_tiled,
      .embedding_forward = ops::ref::embedding_forward,
      .embedding_backward = ops::ref::embedding_backward,
      .dropout_forward = ops::ref::dropout_forward,
      .dropout_backward = ops::ref::dropout_backward,
      .cross_entropy = ops::ref::cross_entropy,
      .add = ops::ref::add,
      .scale = ops::ref::scale,
      .copy = ops::ref::copy,
      .split_heads = ops::ref::split_heads,
      .join_heads = ops::ref::join_heads,
      .heads_to_rows = ops::ref::heads_to_rows,
      .rows_to_heads = ops::ref::rows_to_heads,
      .repeat_kv = ops::ref::repeat_kv,
      .sum_kv_groups = ops::ref::sum_kv_groups,
      .add_positions = ops::ref::add_positions,
      .sum_over_batch = ops::ref::sum_over_batch,
      .adamw_update = ops::ref::adamw_update,
      .adamw_update_spans = ops::ref::adamw_update_spans,
      .clip_grad_norm = ops::ref::clip_grad_norm,
  };
  return table;
}

}  // namespace tinylm
