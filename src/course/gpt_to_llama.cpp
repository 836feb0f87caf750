#include "course/gpt_to_llama.h"

#include <utility>

#include "nn/norm.h"
#include "nn/transformer_block.h"
#include "report/text_table.h"

namespace tinylm::course {

namespace {

// GPT-2 124M as the course's GPTModel: OpenAI's shape with an untied head and no
// q/k/v bias (GPT_CONFIG_124M's qkv_bias False).
ArchStep course_gpt2() {
  GPTConfig c = GPTConfig::preset("gpt2-124m");
  c.qkv_bias = false, c.tie_head = false;
  return step_of(c, "GPT-2 124M (the course's GPTModel: untied head, no q/k/v bias)");
}

// The six changes, each applied to a copy of the step before.
std::vector<ArchStep> changes(const ArchStep& start) {
  std::vector<ArchStep> steps{start};
  auto next = [&](std::string change, auto edit) {
    ArchStep s = steps.back();
    s.change = std::move(change);
    edit(s);
    steps.push_back(s);
  };
  next("LayerNorm -> RMSNorm (a scale, no shift)",
       [](ArchStep& s) { s.block.rms_norm = true, s.block.ln_bias = false; });
  next("learned positions -> RoPE (q and k rotated)",
       [](ArchStep& s) { s.learned_positions = false, s.block.rotary = true; });
  next("no biases (o_proj, MLP)",
       [](ArchStep& s) { s.block.attn_proj_bias = s.block.ffn_bias = false; });
  next("GELU MLP -> SwiGLU, F = 2/3 x 4C = 2048",
       [](ArchStep& s) { s.block.gated = true, s.block.d_ff = 2 * 4 * s.block.d_model / 3; });
  next("multi-head -> grouped-query, 4 KV heads", [](ArchStep& s) {
    s.block.naming = nn::Naming::kLlama;  // separate q, k, v projections
    s.block.n_kv_head = 4;
  });
  next("untied -> tied head", [](ArchStep& s) { s.tied_head = true; });
  return steps;
}

int64_t numel_of(ParameterList& list) {
  int64_t n = 0;
  for (const auto& p : list) n += p.param->value.numel();
  return n;
}

}  // namespace

ArchStep step_of(const GPTConfig& c, std::string change) {
  ArchStep s;
  s.change = std::move(change);
  s.block = block_config(c);
  s.n_layer = c.n_layer, s.vocab = c.vocab_size;
  s.learned_positions = c.position == PositionEncoding::Learned;
  s.tied_head = c.tie_head;
  return s;
}

std::vector<ArchStep> gpt_to_llama_steps() {
  std::vector<ArchStep> steps = changes(course_gpt2());
  steps.push_back(step_of(GPTConfig::preset("smollm2-135m"), "SmolLM2-135M (released shape)"));
  steps.push_back(step_of(GPTConfig::preset("llama-3.2-1b"), "Llama-3.2-1B (released shape)"));
  return steps;
}

StepCounts count_step(const ArchStep& s, int64_t T) {
  const nn::BlockConfig& b = s.block;
  const int64_t C = b.d_model, H = b.n_head, KV = b.n_kv_head > 0 ? b.n_kv_head : H;
  const int64_t D = b.head_dim > 0 ? b.head_dim : C / H;

  nn::TransformerBlock block(b);
  ParameterList params;
  block.parameters(params, "");
  int64_t matrices = 0;  // the block's weight matrices: a multiply-add per weight per token
  for (const auto& p : params)
    if (p.param->value.ndim() == 2) matrices += p.param->value.numel();
  nn::Norm final_norm(C, b.ln_bias, b.norm_eps,
                      b.rms_norm ? nn::NormKind::kRmsNorm : nn::NormKind::kLayerNorm);
  ParameterList norm_params;
  final_norm.parameters(norm_params, "");

  StepCounts n;
  n.params = s.n_layer * numel_of(params) + numel_of(norm_params) + s.vocab * C +
             (s.learned_positions ? T * C : 0) + (s.tied_head ? 0 : s.vocab * C);
  n.flops_per_token = s.n_layer * (2 * matrices + 4 * T * H * D) + 2 * C * s.vocab;
  n.kv_bytes_per_token = 2 * s.n_layer * KV * D * 4;
  return n;
}

std::string format_gpt_to_llama(const std::vector<ArchStep>& steps, int64_t T) {
  report::TextTable t(
      {"step", "change", "parameters", "difference", "FLOPs/token", "KV cache/token"},
      {true, false, true, true, true, true});
  int64_t before = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepCounts n = count_step(steps[i], T);
    const int64_t diff = n.params - before;
    const bool walk = i > 0 && i < steps.size() - 2;  // a change, not a start or a release
    if (i == steps.size() - 2) t.add_rule();
    t.add_row({std::to_string(i), steps[i].change, report::with_commas(n.params),
               walk ? (diff > 0   ? "+"
                       : diff < 0 ? "-"
                                  : "") +
                          report::with_commas(diff < 0 ? -diff : diff)
                    : "",
               report::human_flops(static_cast<double>(n.flops_per_token)),
               report::human_bytes(static_cast<double>(n.kv_bytes_per_token))});
    before = n.params;
  }
  return t.render() + "  FLOPs: forward matmuls per token at T = " + std::to_string(T) +
         " (a multiply-add is 2); KV cache: float32 keys and values of every layer.\n";
}

}  // namespace tinylm::course
