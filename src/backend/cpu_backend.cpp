// The fast CPU kernels of ops/ as a backend table.
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
bool always(std::string*) {
  return true;
}
}  // namespace

const Backend& cpu_backend() {
  static const Backend table{
      .name = "cpu",
      .device = Device::kCpu,
      .available = always,
      .set_matmul_precision = ops::set_cpu_matmul_precision,
      .matmul = ops::matmul,
      .linear_forward = ops::linear_forward,
      .linear_backward = ops::linear_backward,
      .matmul_bf16 = ops::matmul_bf16,
      .to_bf16 = ops::to_bf16,
      .linear_forward_bf16 = ops::linear_forward_bf16,
      .to_f16 = ops::to_f16,
      .linear_forward_f16 = ops::linear_forward_f16,
      .quantize_q8_0 = ops::quantize_q8_0,
      .linear_forward_q8_0 = ops::linear_forward_q8_0,
      .pack_linear = ops::pack_linear,
      .linear_forward_packed = ops::linear_forward_packed,
      .layernorm_forward = ops::layernorm_forward,
      .layernorm_backward = ops::layernorm_backward,
      .rmsnorm_forward = ops::rmsnorm_forward,
      .rmsnorm_backward = ops::rmsnorm_backward,
      .rope_forward = ops::rope_forward,
      .rope_backward = ops::rope_backward,
      .swiglu_forward = ops::swiglu_forward,
      .swiglu_backward = ops::swiglu_backward,
      .activation_forward = ops::activation_forward,
      .activation_backward = ops::activation_backward,
      .softmax_forward = ops::softmax_forward,
      .softmax_backward = ops::softmax_backward,
      .attention_forward = ops::attention_forward,
      .attention_backward = ops::attention_backward,
      .attention_forward_tiled = ops::attention_forward_tiled,
      .attention_backward_tiled = ops::attention_backward_tiled,
      .embedding_forward = ops::embedding_forward,
      .embedding_backward = ops::embedding_backward,
      .dropout_forward = ops::dropout_forward,
      .dropout_backward = ops::dropout_backward,
      .cross_entropy = ops::cross_entropy,
      .add = ops::add,
      .scale = ops::scale,
      .copy = ops::copy,
      .split_heads = ops::split_heads,
      .join_heads = ops::join_heads,
      .heads_to_rows = ops::heads_to_rows,
      .rows_to_heads = ops::rows_to_heads,
      .repeat_kv = ops::repeat_kv,
      .sum_kv_groups = ops::sum_kv_groups,
      .add_positions = ops::add_positions,
      .sum_over_batch = ops::sum_over_batch,
      .adamw_update = ops::adamw_update,
      .adamw_update_spans = ops::adamw_update_spans,
      .clip_grad_norm = ops::clip_grad_norm,
  };
  return table;
}

}  // namespace tinylm
