// Floating-point operations of a GPT forward and training step, in closed form, for
// batch B and sequence length T (T <= block_size). A multiply-add counts as 2 FLOPs.
// Forward, per token, per layer (C = d_model, F = d_ff, V = vocab, H heads):
//   attn.c_attn  Q, K, V projection             2 * C * 3C
//   scores       q k^T over T keys, all heads    2 * T * C  (T * d_head * H = T * C MACs)
//   weighted     att @ v                         2 * T * C
//   attn.c_proj  output projection               2 * C * C
//   mlp          c_fc + c_proj                   2 * C * F + 2 * F * C
// and once per token: the head 2 * C * V. Per sequence the attention terms are
// 4 * T^2 * C per layer: quadratic in T, while everything else is linear.
// Causal attention masks half of the T x T scores, but tinylm's kernels compute the
// dense matrix and then mask, so we count dense.
// The llama family: its q, k, v projections, o_proj, gate, up and down (report/
// block_layers.h), and the attention products over its H * D query width.
// Not counted (small, element-wise): embedding add, LayerNorm, softmax, activation,
// residual adds, biases, the loss; `elementwise` lists how many elements each touches.
// Backward ~ 2 x forward (the usual approximation: each matmul needs two more products
// of the same size, one for the input gradient and one for the weight gradient), so a
// training step is 3 x forward.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace tinylm::report {

struct FlopRow {
  std::string component;  // "attn.c_attn (Q, K, V)"
  std::string formula;    // "2 * C * 3C", per token for one layer (or the head)
  int64_t per_layer = 0;  // FLOPs per token for one instance
  int64_t copies = 1;     // n_layer, or 1 for the head
  int64_t per_token() const { return per_layer * copies; }
};

struct ElementwiseRow {
  std::string component;  // "LayerNorm"
  std::string formula;    // "(2L + 1) * C"
  int64_t elements = 0;   // elements touched per token, forward, all layers
};

struct FlopEstimate {
  int64_t batch = 0, seq = 0;
  std::vector<FlopRow> rows;                // matmul FLOPs, forward
  std::vector<ElementwiseRow> elementwise;  // not counted in the totals
  int64_t forward_per_token = 0;            // sum of rows
  int64_t attention_per_token = 0;          // the T-dependent part (scores + weighted)
  int64_t forward_per_step = 0;             // forward_per_token * B * T
  int64_t backward_per_step = 0;            // 2 * forward_per_step
  int64_t train_per_step = 0;               // 3 * forward_per_step
  // Rules of thumb, per step (tokens = B * T):
  int64_t six_n = 0;            // 6 * N * tokens, N = params excluding position embeddings
  int64_t six_n_kaplan = 0;     // 6 * N * tokens, N = params excluding both embeddings
  int64_t six_n_attention = 0;  // six_n + 12 * L * T * H * D * tokens (nanoGPT's MFU formula)
};

// Throws InputError (naming the config field) for an invalid config, and unless
// B >= 1 and 1 <= T <= block_size.
FlopEstimate estimate_flops(const GPTConfig& c, int64_t B, int64_t T);

// The batch-shape check shared by the estimates: InputError unless B >= 1 and
// 1 <= T <= block_size.
void check_batch_shape(const GPTConfig& c, int64_t B, int64_t T);

}  // namespace tinylm::report
