// The shape and choices of one transformer block (nn/transformer_block.h), resolved:
// every default already applied. model/ builds it from the whole model's GPTConfig
// (model/config.h: block_config), so that nn/ knows nothing of the model above it.
#pragma once
#include <cstdint>

#include "ops/activation.h"

namespace tinylm::nn {

struct BlockConfig {
  int64_t d_model = 0;  // C
  int64_t n_head = 0;   // H (C % H == 0)
  int64_t d_ff = 0;     // hidden size of the feed-forward network
  ops::Activation activation = ops::Activation::GeluTanh;
  bool pre_ln = true;          // false: post-LN, h = LN(x + f(x))
  bool residual = true;        // false: no skip connections, h = f(x)
  bool qkv_bias = true;        // biases of the Q, K, V projections
  bool attn_proj_bias = true;  // bias of the attention output projection
  bool ffn_bias = true;        // biases of the two feed-forward linears
  bool ln_bias = true;         // LayerNorm has a bias (beta)
  float ln_eps = 1e-5f;
  float dropout = 0.0f;       // on the residual branches
  float attn_dropout = 0.0f;  // on the attention weights
};

}  // namespace tinylm::nn
