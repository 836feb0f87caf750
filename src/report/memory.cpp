#include "report/memory.h"

#include <algorithm>
#include <string>

#include "lora/lora.h"
#include "model/gpt.h"
#include "report/flops.h"
#include "report/param_table.h"
#include "util/checked_math.h"

namespace tinylm::report {

namespace {

using S = MemorySection;

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
  if (c.position == PositionEncoding::Rotary)
    r.add(S::Weights, "rotary cos, sin tables", "2 x [block_size, D/2]",
          c.block_size * c.head_size());
}

// A list of buffers (nn/buffer_plan.h) as rows; a buffer named as an earlier one of the
// same size and section (the same kind of adapter on another layer) counts as a copy of it.
void add_plan_rows(Rows& r, const nn::BufferPlan& plan) {
  const size_t first = r.m.rows.size();
  for (const nn::PlannedBuffer& b : plan.buffers) {
    const S section = b.use == nn::BufferUse::kForward    ? S::Forward
                      : b.use == nn::BufferUse::kBackward ? S::Backward
                                                          : S::Transient;
    const auto same = std::find_if(r.m.rows.begin() + first, r.m.rows.end(), [&](auto& row) {
      return row.section == section && row.component == b.name && row.elems == b.elems;
    });
    if (same != r.m.rows.end())
      same->copies += b.copies;
    else
      r.add(section, b.name, b.shape, b.elems, b.copies);
  }
}

// "transformer.h.3.attn.c_attn" -> "h.*.attn.c_attn": the kind of layer an adapter is on.
std::string layer_kind(const std::string& module) {
  std::string m = module.rfind("transformer.", 0) == 0 ? module.substr(12) : module;
  const size_t dot = m.find('.', 2);
  if (m.rfind("h.", 0) == 0 && dot != std::string::npos) m = "h.*" + m.substr(dot);
  return m;
}

// The buffers each adapter keeps, as LoraAdapter lists them (lora/lora.h): one row per
// kind of adapted layer, copies = how many layers of that kind have one.
nn::BufferPlan adapter_buffers(const LoraAdapters& lora, const nn::StepShape& s) {
  nn::BufferPlan plan;
  for (const AdapterLayer& a : lora.layers)
    LoraAdapter::plan_buffers(plan, "LoRA on " + layer_kind(a.module), a.in, lora.r, lora.dropout,
                              s);
  return plan;
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
  const int64_t widest =
      std::max({C, F, V, c.n_head * c.head_size(), checked_mul(c.n_head, T, "n_head x sequence")});
  checked_product({64, L + 2, B, T, widest}, "the memory of a training step (batch " +
                                                 std::to_string(B) + ", sequence " +
                                                 std::to_string(T) + ")");
  const nn::StepShape step{B, T, training};
  MemoryEstimate m;
  m.batch = B, m.seq = T, m.training = training;
  Rows rows{m};
  const int64_t N = param_table(c).total;
  add_weight_rows(rows, c, N, lora);
  // The model's own list (its embeddings frozen under LoRA), then the adapters'.
  add_plan_rows(rows, GPT::plan_buffers(c, step, /*embeddings_train=*/lora == nullptr));
  if (lora) add_plan_rows(rows, adapter_buffers(*lora, step));
  std::stable_sort(m.rows.begin(), m.rows.end(), [](const MemoryRow& a, const MemoryRow& b) {
    return a.section < b.section;  // the adapters' rows join their sections
  });

  const int64_t trained = lora ? lora->parameters() : N;  // what has gradients and moments
  m.parameters = 4 * (N + (lora ? trained : 0));
  m.gradients = 4 * trained;
  m.optimizer = 2 * 4 * trained;
  m.buffers = c.position == PositionEncoding::Sinusoidal ? 4 * c.block_size * C
              : c.position == PositionEncoding::Rotary   ? 4 * c.block_size * c.head_size()
                                                         : 0;
  for (const auto& row : m.rows) {
    if (row.section == S::Forward) m.forward += row.bytes();
    if (row.section == S::Backward) m.backward += row.bytes();
    if (row.section == S::Transient) m.transient += row.bytes();
  }
  return m;
}

}  // namespace tinylm::report
