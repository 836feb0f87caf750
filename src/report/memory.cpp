#include "report/memory.h"

#include <algorithm>
#include <string>

#include "report/flops.h"
#include "report/param_table.h"
#include "util/checked_math.h"

namespace tinylm::report {

namespace {

using S = MemorySection;

// The sizes the rows are made of: B x T, B x T x C and B x T x F elements, and whether
// dropout keeps masks (training with dropout > 0).
struct Sizes {
  int64_t B, T, C, F, V, H, L, BT, BTC, BTF;
  bool drop;
};

// Appends rows to a MemoryEstimate: (section, name, shape, elements, copies).
struct Rows {
  MemoryEstimate& m;
  void add(S s, std::string name, std::string shape, int64_t elems, int64_t copies = 1) {
    m.rows.push_back({s, std::move(name), std::move(shape), elems, copies});
  }
};

// Parameters, their gradients, AdamW's moments and a fixed position table. Under LoRA
// the N model parameters are frozen (no gradient, no moments) and only the Na adapter
// parameters have both.
void add_weight_rows(Rows& r, const GPTConfig& c, int64_t N, const LoraAdapters* lora) {
  if (lora) {
    const int64_t Na = lora->parameters();
    r.add(S::Weights, "frozen parameters (no gradient, no AdamW state)", "N", N);
    r.add(S::Weights, "adapters A, B (" + lora->description + ")", "Na = sum r (in + out)", Na);
    r.add(S::Weights, "adapter gradients", "Na", Na);
    r.add(S::Weights, "AdamW moments m, v (adapters only)", "2 x Na", 2 * Na);
  } else {
    r.add(S::Weights, "parameters", "N", N);
    r.add(S::Weights, "gradients", "N", N);
    r.add(S::Weights, "AdamW moments m, v", "2 x N", 2 * N);
  }
  if (c.position == PositionEncoding::Sinusoidal)
    r.add(S::Weights, "sinusoidal position table", "[block_size, C]", c.block_size * c.d_model);
}

// What the forward pass keeps for backward: embeddings, each block, final norm and loss.
void add_forward_rows(Rows& r, const Sizes& z, bool training) {
  const int64_t B = z.B, T = z.T, H = z.H, L = z.L, BT = z.BT, BTC = z.BTC, BTF = z.BTF;
  r.add(S::Forward, "token ids (int32, kept by wte)", "[B, T]", BT);
  r.add(S::Forward, "wte output, x0 = tok + pos", "2 x [B, T, C]", 2 * BTC);
  r.add(S::Forward, "wpe output", "[T, C]", T * z.C);
  if (z.drop) r.add(S::Forward, "embedding dropout mask, output", "2 x [B, T, C]", 2 * BTC);
  r.add(S::Forward, "block: ln_1 output, mean, rstd", "[B, T, C] + 2 x [B, T]", BTC + 2 * BT, L);
  r.add(S::Forward, "block: attn.c_attn output qkv", "[B, T, 3C]", 3 * BTC, L);
  r.add(S::Forward, "block: q, k, v, y split by head", "4 x [B, H, T, dh]", 4 * BTC, L);
  if (training)  // tiled attention keeps only each row's log-sum-exp (and dropout's key)
    r.add(S::Forward, "block: attention row log-sum-exp (tiled)", "[B, H, T]", B * H * T, L);
  else
    r.add(S::Forward, "block: attention weights att", "[B, H, T, T]", B * H * T * T, L);
  r.add(S::Forward, "block: merged heads, attn.c_proj output", "2 x [B, T, C]", 2 * BTC, L);
  r.add(S::Forward, "block: ln_2 output, mean, rstd", "[B, T, C] + 2 x [B, T]", BTC + 2 * BT, L);
  r.add(S::Forward, "block: mlp.c_fc output, activation", "2 x [B, T, F]", 2 * BTF, L);
  r.add(S::Forward, "block: mlp.c_proj output", "[B, T, C]", BTC, L);
  r.add(S::Forward, "block: residual sums", "2 x [B, T, C]", 2 * BTC, L);
  if (z.drop)
    r.add(S::Forward, "block: residual dropout masks, outputs", "4 x [B, T, C]", 4 * BTC, L);
  r.add(S::Forward, "ln_f output, mean, rstd", "[B, T, C] + 2 x [B, T]", BTC + 2 * BT);
  r.add(S::Forward, "logits, dlogits (forward_loss)", "2 x [B, T, V]", 2 * BT * z.V);
}

// The backward buffers the modules keep between steps, and MultiHeadAttention::backward's
// work buffers (one set, shared by every block). With the embeddings frozen (LoRA),
// GPT::backward stops above them: no embedding dropout dx, no dpos.
void add_backward_rows(Rows& r, const Sizes& z, bool embeddings_train) {
  const int64_t L = z.L, BTC = z.BTC, BTF = z.BTF;
  r.add(S::Backward, "head dxf, ln_f dx", "2 x [B, T, C]", 2 * BTC);
  r.add(S::Backward, "block: ln_1 dx, ln_2 dx", "2 x [B, T, C]", 2 * BTC, L);
  r.add(S::Backward, "block: attn.c_proj dx, attn.c_attn dx", "2 x [B, T, C]", 2 * BTC, L);
  r.add(S::Backward, "block: mlp.c_proj dx, d(pre-activation)", "2 x [B, T, F]", 2 * BTF, L);
  r.add(S::Backward, "block: mlp.c_fc dx", "[B, T, C]", BTC, L);
  r.add(S::Backward, "block: dh, dx (residual stream)", "2 x [B, T, C]", 2 * BTC, L);
  if (z.drop) r.add(S::Backward, "block: residual dropout dx", "2 x [B, T, C]", 2 * BTC, L);
  if (z.drop && embeddings_train) r.add(S::Backward, "embedding dropout dx", "[B, T, C]", BTC);
  if (embeddings_train) r.add(S::Backward, "dpos (batch sum)", "[T, C]", z.T * z.C);
  r.add(S::Transient, "attention backward: dy, dq, dk, dv, dqkv", "4 x [B, H, T, dh] + [B, T, 3C]",
        7 * BTC);
}

// The buffers each adapter keeps (LoraAdapter): u = drop(x) A^T and du [BT, r]; with
// adapter dropout in training, the dropped input xd [BT, in], its mask (one byte per
// element) and dxd [BT, in].
void add_adapter_rows(Rows& r, const Sizes& z, const LoraAdapters& lora, bool training) {
  const int64_t n = static_cast<int64_t>(lora.layers.size());
  r.add(S::Forward, "LoRA: u = x A^T, per adapter", "[B, T, r]", z.BT * lora.r, n);
  r.add(S::Backward, "LoRA: du = s dy B, per adapter", "[B, T, r]", z.BT * lora.r, n);
  if (!training || lora.dropout <= 0) return;
  int64_t in_elems = 0;  // sum over the adapters of BT x in
  for (const AdapterLayer& a : lora.layers) in_elems += z.BT * a.in;
  r.add(S::Forward, "LoRA dropout: xd, mask (1 byte), all adapters", "[B, T, in] x 1.25",
        in_elems + (in_elems + 3) / 4);
  r.add(S::Backward, "LoRA dropout: dxd, all adapters", "[B, T, in]", in_elems);
}

}  // namespace

int64_t LoraAdapters::parameters() const {
  int64_t n = 0;
  for (const AdapterLayer& a : layers) n += r * (a.in + a.out);
  return n;
}

MemoryEstimate estimate_memory(const GPTConfig& c, int64_t B, int64_t T, bool training,
                               const LoraAdapters* lora) {
  c.validate();
  check_batch_shape(c, B, T);
  const int64_t V = c.vocab_size, C = c.d_model, L = c.n_layer, F = c.ffn_hidden();
  // An upper bound of every byte count below, checked, so that none of them overflows.
  const int64_t widest = std::max({C, F, V, checked_mul(c.n_head, T, "n_head x sequence")});
  checked_product({64, L + 2, B, T, widest}, "the memory of a training step (batch " +
                                                 std::to_string(B) + ", sequence " +
                                                 std::to_string(T) + ")");
  const Sizes z{
      B, T, C, F, V, c.n_head, L, B * T, B * T * C, B * T * F, training && c.dropout > 0.0f};
  MemoryEstimate m;
  m.batch = B, m.seq = T, m.training = training;
  Rows rows{m};
  const int64_t N = param_table(c).total;
  add_weight_rows(rows, c, N, lora);
  add_forward_rows(rows, z, training);
  add_backward_rows(rows, z, /*embeddings_train=*/lora == nullptr);
  if (lora) add_adapter_rows(rows, z, *lora, training);
  std::stable_sort(m.rows.begin(), m.rows.end(), [](const MemoryRow& a, const MemoryRow& b) {
    return a.section < b.section;  // the adapters' rows join their sections
  });

  const int64_t trained = lora ? lora->parameters() : N;  // what has gradients and moments
  m.parameters = 4 * (N + (lora ? trained : 0));
  m.gradients = 4 * trained;
  m.optimizer = 2 * 4 * trained;
  m.buffers = c.position == PositionEncoding::Sinusoidal ? 4 * c.block_size * C : 0;
  for (const auto& row : m.rows) {
    if (row.section == S::Forward) m.forward += row.bytes();
    if (row.section == S::Backward) m.backward += row.bytes();
    if (row.section == S::Transient) m.transient += row.bytes();
  }
  return m;
}

}  // namespace tinylm::report
