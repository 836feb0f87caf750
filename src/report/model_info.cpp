#include "report/model_info.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "report/block_layers.h"
#include "report/text_table.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::report {

ModelInfo model_info(const GPTConfig& c, int64_t batch, int64_t seq, const LoraAdapters* lora) {
  c.validate();
  ModelInfo info;
  info.config = c;
  info.params = param_table(c);
  info.flops = estimate_flops(c, batch, seq);
  info.memory = estimate_memory(c, batch, seq, true, lora);
  info.has_lora = lora != nullptr;
  if (lora) info.lora = *lora;
  return info;
}

GPTConfig load_model_config(const std::string& path) {
  return model_config_from_json(read_json_file(path), path);
}

GPTConfig model_config_from_json(const nlohmann::json& j, const std::string& what) {
  try {
    const bool nested = j.is_object() && j.contains("model");
    GPTConfig c = GPTConfig::from_json(nested ? j["model"] : j, "model.");
    c.validate();
    return c;
  } catch (const InputError& e) {
    throw InputError(what + ": " + e.what());
  }
}

namespace {

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

// A float as %g writes it: "1e-06", "500000".
std::string short_number(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

// The second line: the family's choices.
std::string describe_family(const GPTConfig& c) {
  if (c.arch == Arch::Llama)
    return "llama: RMSNorm (eps " + short_number(c.norm_eps) + "), RoPE (theta " +
           short_number(c.rope_theta) +
           (c.rope_scaling.factor > 0 ? ", llama3 scaling x" + short_number(c.rope_scaling.factor)
                                      : std::string()) +
           "), SwiGLU, " + std::to_string(c.kv_heads()) + " key/value heads" +
           (c.qk_norm ? ", q/k norms" : "") + ", " + (c.tie_head ? "tied" : "untied") +
           " head; biases: qkv " + yes_no(c.qkv_bias) + "; dropout " + fixed(c.dropout, 2);
  return std::string(c.pre_ln ? "pre-LN" : "post-LN") +
         (c.residual ? "" : " without residual connections") + ", " +
         ops::activation_name(c.activation) + ", " +
         (c.position == PositionEncoding::Learned ? "learned" : "sinusoidal") + " positions, " +
         (c.tie_head ? "tied" : "untied") + " head; biases: qkv " + yes_no(c.qkv_bias) +
         ", attn_proj " + yes_no(c.attn_proj_bias) + ", ffn " + yes_no(c.ffn_bias) + ", ln " +
         yes_no(c.ln_bias) + ", head " + yes_no(c.head_bias) + "; dropout " + fixed(c.dropout, 2);
}

std::string describe(const GPTConfig& c) {
  std::string s = "model: " + std::to_string(c.n_layer) + " layers, " + std::to_string(c.n_head) +
                  " heads (d_head " + std::to_string(c.head_size()) + "), d_model " +
                  std::to_string(c.d_model) + ", d_ff " + std::to_string(c.ffn_hidden()) +
                  ", vocab " + with_commas(c.vocab_size) + ", block_size " +
                  std::to_string(c.block_size) + "\n";
  s += "       " + describe_family(c) + "\n";
  s += "       KV cache: " + with_commas(kv_cache_bytes_per_token(c)) +
       " bytes per token (float32: 2 x layers x " + std::to_string(c.kv_heads()) +
       " key/value heads x d_head x 4)\n";
  return s;
}

std::string render_params(const ParamTable& p, int64_t L) {
  TextTable t({"component", "shape", "params", "copies", "total", "% of total", "note"},
              {false, false, true, true, true, true, false});
  for (size_t i = 0; i < p.rows.size(); ++i) {
    const ParamRow& r = p.rows[i];
    t.add_row({r.component, r.shape, with_commas(r.count), std::to_string(r.copies),
               with_commas(r.total()), percent(r.total(), p.total), r.note});
    if (i == p.last_block_row)
      t.add_row({"block total", "", with_commas(p.per_block), std::to_string(L),
                 with_commas(p.per_block * L), percent(p.per_block * L, p.total)});
  }
  t.add_rule();
  t.add_row({"total", "", "", "", with_commas(p.total), percent(p.total, p.total)});
  t.add_row({"excluding position embeddings", "", "", "", with_commas(p.excluding_position),
             percent(p.excluding_position, p.total), "nanoGPT's get_num_params()"});
  t.add_row({"excluding token + position embeddings", "", "", "",
             with_commas(p.excluding_embeddings), percent(p.excluding_embeddings, p.total),
             "Kaplan's non-embedding N"});
  return "parameters\n" + t.render();
}

// A LoRA run's parameters: the model's (frozen) and the adapters' (trainable).
std::string render_lora_params(const ParamTable& p, const LoraAdapters& lora) {
  const int64_t Na = lora.parameters(), all = p.total + Na;
  TextTable t({"LoRA run", "params", "% of all"}, {false, true, true});
  t.add_row({"frozen: the model above (no gradient, no AdamW state)", with_commas(p.total),
             percent(p.total, all)});
  t.add_row({"trainable: " + std::to_string(lora.layers.size()) + " adapters, " + lora.description,
             with_commas(Na), percent(Na, all)});
  t.add_rule();
  t.add_row({"all parameters", with_commas(all), percent(all, all)});
  return t.render();
}

std::string render_flops(const FlopEstimate& f, const ParamTable& p) {
  const int64_t tokens = f.batch * f.seq;
  std::string s =
      "FLOPs (a multiply-add is 2 FLOPs; matmuls only; T = " + std::to_string(f.seq) + ")\n";
  TextTable t({"forward, per token", "formula", "per layer", "copies", "per token", "%"},
              {false, false, true, true, true, true});
  for (const auto& r : f.rows)
    t.add_row({r.component, r.formula, with_commas(r.per_layer), std::to_string(r.copies),
               with_commas(r.per_token()), percent(r.per_token(), f.forward_per_token)});
  t.add_rule();
  t.add_row({"forward per token", "", "", "", with_commas(f.forward_per_token), "100.00%"});
  s += t.render();
  s += "  attention (scores + weights @ v) is 4 * T^2 * C per layer per sequence: quadratic\n"
       "  in T, " +
       percent(f.attention_per_token, f.forward_per_token) +
       " of the forward FLOPs at T = " + std::to_string(f.seq) + ".\n";
  s += "  Causal: half of the T x T scores are masked, but the kernels compute them densely\n"
       "  and mask afterwards, so they are counted (dense).\n\n";

  TextTable step({"per step: B = " + std::to_string(f.batch) + ", T = " + std::to_string(f.seq) +
                      " (" + with_commas(tokens) + " tokens)",
                  "FLOPs", "", "vs training step"},
                 {false, true, true, true});
  auto flop_row = [&](const std::string& name, int64_t v) {
    step.add_row({name, with_commas(v), human_flops(static_cast<double>(v)),
                  fixed(static_cast<double>(v) / static_cast<double>(f.train_per_step), 3)});
  };
  flop_row("forward", f.forward_per_step);
  flop_row("backward (~2 x forward, the usual approximation)", f.backward_per_step);
  flop_row("training step (3 x forward)", f.train_per_step);
  step.add_heading("rules of thumb:");
  flop_row("6N, N = " + with_commas(p.excluding_position) + " (excl. position emb.)", f.six_n);
  flop_row("6N, N = " + with_commas(p.excluding_embeddings) + " (excl. both emb., Kaplan)",
           f.six_n_kaplan);
  flop_row("6N + 12 L T C per token (nanoGPT's MFU estimate)", f.six_n_attention);
  s += step.render() + "\n";

  TextTable e({"not counted (element-wise)", "formula", "elements per token"},
              {false, false, true});
  for (const auto& r : f.elementwise) e.add_row({r.component, r.formula, with_commas(r.elements)});
  s += e.render();
  return s;
}

std::string render_memory(const MemoryEstimate& m) {
  std::string s = "memory (float32, 4 bytes; B = " + std::to_string(m.batch) +
                  ", T = " + std::to_string(m.seq) +
                  "; as tinylm's modules allocate them for a training step)\n";
  TextTable t({"component", "shape", "copies", "bytes", "", "% of peak"},
              {false, false, true, true, true, true});
  const double peak = static_cast<double>(m.training_peak());
  const char* headings[] = {"weights", "forward activations kept for backward",
                            "backward buffers kept by modules between steps",
                            "work buffers of backward (one set for all blocks)"};
  int section = -1;
  for (const auto& r : m.rows) {
    if (static_cast<int>(r.section) != section) {
      section = static_cast<int>(r.section);
      t.add_heading(headings[section]);
    }
    t.add_row({"  " + r.component, r.shape, std::to_string(r.copies), with_commas(r.bytes()),
               human_bytes(r.bytes()), percent(r.bytes(), peak)});
  }
  t.add_rule();
  auto total = [&](const std::string& name, int64_t v) {
    t.add_row({name, "", "", with_commas(v), human_bytes(v), percent(v, peak)});
  };
  total("activations (forward + backward + transient)", m.activations());
  total("peak of forward_loss + backward (no optimizer)", m.step_peak());
  total("peak of a training step with AdamW", m.training_peak());
  return s + t.render();
}

}  // namespace

std::string render_text(const ModelInfo& info) {
  std::string params = render_params(info.params, info.config.n_layer);
  if (info.has_lora) params += render_lora_params(info.params, info.lora);
  return describe(info.config) + "\n" + params + "\n" + render_flops(info.flops, info.params) +
         "\n" + render_memory(info.memory);
}

namespace {

nlohmann::json params_json(const ParamTable& p) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : p.rows)
    rows.push_back({{"component", r.component},
                    {"shape", r.shape},
                    {"params", r.count},
                    {"copies", r.copies},
                    {"total", r.total()},
                    {"note", r.note}});
  return {{"rows", rows},
          {"per_block", p.per_block},
          {"total", p.total},
          {"excluding_position_embeddings", p.excluding_position},
          {"excluding_embeddings", p.excluding_embeddings}};
}

nlohmann::json flops_json(const FlopEstimate& f) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : f.rows)
    rows.push_back({{"component", r.component},
                    {"formula", r.formula},
                    {"per_layer", r.per_layer},
                    {"copies", r.copies},
                    {"per_token", r.per_token()}});
  nlohmann::json elementwise = nlohmann::json::array();
  for (const auto& r : f.elementwise)
    elementwise.push_back(
        {{"component", r.component}, {"formula", r.formula}, {"elements_per_token", r.elements}});
  return {{"forward_rows", rows},
          {"not_counted", elementwise},
          {"forward_per_token", f.forward_per_token},
          {"attention_per_token", f.attention_per_token},
          {"forward_per_step", f.forward_per_step},
          {"backward_per_step", f.backward_per_step},
          {"train_per_step", f.train_per_step},
          {"six_n_per_step", f.six_n},
          {"six_n_kaplan_per_step", f.six_n_kaplan},
          {"six_n_attention_per_step", f.six_n_attention}};
}

nlohmann::json memory_json(const MemoryEstimate& m) {
  static const char* sections[] = {"weights", "forward", "backward", "transient"};
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : m.rows)
    rows.push_back({{"section", sections[static_cast<int>(r.section)]},
                    {"component", r.component},
                    {"shape", r.shape},
                    {"elements", r.elems},
                    {"copies", r.copies},
                    {"bytes", r.bytes()}});
  return {{"rows", rows},
          {"parameters_bytes", m.parameters},
          {"gradients_bytes", m.gradients},
          {"optimizer_bytes", m.optimizer},
          {"buffers_bytes", m.buffers},
          {"forward_bytes", m.forward},
          {"backward_bytes", m.backward},
          {"transient_bytes", m.transient},
          {"step_peak_bytes", m.step_peak()},
          {"training_peak_bytes", m.training_peak()}};
}

}  // namespace

nlohmann::json to_json(const ModelInfo& info) {
  nlohmann::json j = {{"config", info.config.to_json()}, {"batch", info.flops.batch},
                      {"seq", info.flops.seq},           {"parameters", params_json(info.params)},
                      {"flops", flops_json(info.flops)}, {"memory", memory_json(info.memory)}};
  if (info.has_lora)
    j["lora"] = {{"r", info.lora.r},
                 {"description", info.lora.description},
                 {"adapters", info.lora.layers.size()},
                 {"trainable_parameters", info.lora.parameters()},
                 {"frozen_parameters", info.params.total}};
  return j;
}

}  // namespace tinylm::report
