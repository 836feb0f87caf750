// LoRA adapters: the branch's forward/backward, target selection, attach, merge.
#include "lora/lora.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "backend/registry.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace tinylm {

float LoraConfig::scaling() const {
  return rslora ? alpha / std::sqrt(static_cast<float>(r)) : alpha / static_cast<float>(r);
}

LoraAdapter::LoraAdapter(int64_t in, int64_t out, int64_t r, float scaling, float dropout)
    : A({r, in}, /*decay=*/true),
      B({out, r}, /*decay=*/true),
      in_(in),
      out_(out),
      r_(r),
      scaling_(scaling),
      dropout_(dropout) {}

void LoraAdapter::init(Rng& rng) {
  // kaiming_uniform_(a=sqrt(5)): gain sqrt(2 / (1 + 5)), bound gain * sqrt(3 / fan_in)
  const float bound = 1.0f / std::sqrt(static_cast<float>(in_));
  for (int64_t i = 0; i < A.value.numel(); ++i) A.value[i] = (2.0f * rng.uniform() - 1.0f) * bound;
  B.value.zero();
}

void LoraAdapter::plan_buffers(nn::BufferPlan& plan, const std::string& prefix, int64_t in,
                               int64_t r, float dropout, const nn::StepShape& s) {
  using nn::BufferUse;
  plan.add_rows(BufferUse::kForward, prefix + ": u = x A^T", s, {"r", r});
  plan.add_rows(BufferUse::kBackward, prefix + ": du = s dy B", s, {"r", r});
  if (!s.training || dropout <= 0.0f) return;
  const int64_t elems = s.rows() * in;
  plan.add(BufferUse::kForward, prefix + ": dropout xd, mask (1 byte)", "[B, T, in] x 1.25",
           elems + (elems + 3) / 4);
  plan.add_rows(BufferUse::kBackward, prefix + ": dropout dxd", s, {"in", in});
}

void LoraAdapter::forward_add(const float* x, float* y, int64_t N, const nn::Context& ctx) {
  const float* xin = x;
  keep_.clear();
  if (ctx.training && ctx.rng && dropout_ > 0.0f) {  // inverted dropout on the adapter's input only
    xd_.ensure_shape({N, in_});
    keep_.resize(N * in_);
    const float scale = 1.0f / (1.0f - dropout_);
    const uint64_t key = ctx.dropout_key(N * in_);  // the rule of ops::dropout_draw_mask
    for (int64_t i = 0; i < N * in_; ++i) {
      keep_[i] = counter_uniform(key, static_cast<uint64_t>(i)) >= dropout_;
      xd_[i] = keep_[i] ? x[i] * scale : 0.0f;
    }
    xin = xd_.data();
  }
  u_.ensure_shape({N, r_});
  const Backend& kernels = on(u_);
  kernels.matmul(xin, A.value.data(), u_.data(), N, r_, in_, false, /*trans_b=*/true, 1.0f,
                 0.0f);  // u = drop(x) A^T  [N, r]
  kernels.matmul(u_.data(), B.value.data(), y, N, out_, r_, false, /*trans_b=*/true, scaling_,
                 1.0f);  // y += s u B^T  [N, out]
}

void LoraAdapter::backward_add(const float* x, const float* dy, float* dx, int64_t N) {
  const bool dropped = !keep_.empty();
  const float* xin = dropped ? xd_.data() : x;
  const Backend& kernels = on(u_);
  // dB [out, r] += s dy^T u
  if (B.trainable())
    kernels.matmul(dy, u_.data(), B.grad.data(), out_, r_, N, /*trans_a=*/true, false, scaling_,
                   1.0f);
  // du [N, r] = s dy B
  du_.ensure_shape({N, r_});
  kernels.matmul(dy, B.value.data(), du_.data(), N, r_, out_, false, false, scaling_, 0.0f);
  // dA [r, in] += du^T drop(x)
  if (A.trainable())
    kernels.matmul(du_.data(), xin, A.grad.data(), r_, in_, N, /*trans_a=*/true, false, 1.0f, 1.0f);
  if (!dx) return;
  if (!dropped) {
    kernels.matmul(du_.data(), A.value.data(), dx, N, in_, r_, false, false, 1.0f, 1.0f);
    return;
  }
  dxd_.ensure_shape({N, in_});
  kernels.matmul(du_.data(), A.value.data(), dxd_.data(), N, in_, r_, false, false, 1.0f, 0.0f);
  const float scale = 1.0f / (1.0f - dropout_);
  for (int64_t i = 0; i < N * in_; ++i)
    if (keep_[i]) dx[i] += dxd_[i] * scale;
}

namespace {

// One linear layer of a block that LoRA can adapt: PEFT's module name below the block,
// the target kind that selects it, and its widths.
struct BlockModule {
  std::string name, kind;
  int64_t in, out;
};

// The family's adaptable layers, in model order (names as Hugging Face's modules).
std::vector<BlockModule> block_modules(const GPTConfig& c) {
  const int64_t C = c.d_model, F = c.ffn_hidden();
  if (c.arch != Arch::Llama)
    return {{"attn.c_attn", "c_attn", C, 3 * C},
            {"attn.c_proj", "c_proj", C, C},
            {"mlp.c_fc", "c_fc", C, F},
            {"mlp.c_proj", "c_proj", F, C}};
  const int64_t HD = c.n_head * c.head_size(), KVD = c.kv_heads() * c.head_size();
  return {{"self_attn.q_proj", "q_proj", C, HD},  {"self_attn.k_proj", "k_proj", C, KVD},
          {"self_attn.v_proj", "v_proj", C, KVD}, {"self_attn.o_proj", "o_proj", HD, C},
          {"mlp.gate_proj", "gate_proj", C, F},   {"mlp.up_proj", "up_proj", C, F},
          {"mlp.down_proj", "down_proj", F, C}};
}

// "transformer.h." (GPT-2) or "model.layers." (llama): where block i's modules are.
std::string blocks_prefix(const GPTConfig& c) {
  return c.arch == Arch::Llama ? "model.layers." : "transformer.h.";
}

// The block's layer that a module name of block_modules names, in either family.
nn::Linear* block_linear(nn::TransformerBlock& b, const std::string& name) {
  const std::pair<const char*, nn::Linear*> layers[] = {{"attn.c_attn", &b.attn.c_attn},
                                                        {"attn.c_proj", &b.attn.c_proj},
                                                        {"mlp.c_fc", &b.mlp.c_fc},
                                                        {"mlp.c_proj", &b.mlp.c_proj},
                                                        {"self_attn.q_proj", &b.attn.q_proj},
                                                        {"self_attn.k_proj", &b.attn.k_proj},
                                                        {"self_attn.v_proj", &b.attn.v_proj},
                                                        {"self_attn.o_proj", &b.attn.c_proj},
                                                        {"mlp.gate_proj", &b.mlp.gate},
                                                        {"mlp.up_proj", &b.mlp.c_fc},
                                                        {"mlp.down_proj", &b.mlp.c_proj}};
  for (const auto& [n, layer] : layers)
    if (name == n) return layer;
  return nullptr;
}

// "c_attn, c_proj, c_fc or head": the target kinds of c's family, for messages.
std::string target_kinds_text(const GPTConfig& c) {
  std::string text;
  for (const BlockModule& m : block_modules(c))
    if (text.find(m.kind) == std::string::npos) text += m.kind + ", ";
  return text + "head";
}

}  // namespace

void validate(const LoraConfig& lora) {
  require(lora.r > 0, "lora.r must be a positive integer, got " + std::to_string(lora.r));
  require(std::isfinite(lora.alpha) && lora.alpha > 0, "lora.alpha must be a positive number");
  require(lora.dropout >= 0.0f && lora.dropout < 1.0f, "lora.dropout must be in [0, 1)");
  require(!lora.targets.empty(), "lora.targets: empty (any of the model's layer kinds or head)");
}

std::vector<LoraTarget> lora_targets(const GPTConfig& c, int64_t head_out, const LoraConfig& lora) {
  validate(lora);
  const std::vector<BlockModule> modules = block_modules(c);
  std::set<std::string> kinds;
  for (const auto& t : lora.targets) {
    if (t == kAllLinear) {
      for (const BlockModule& m : modules) kinds.insert(m.kind);
      continue;
    }
    const bool known =
        t == "head" || std::any_of(modules.begin(), modules.end(),
                                   [&](const BlockModule& m) { return m.kind == t; });
    require(known, "lora.targets: unknown target '" + t + "' (" + arch_name(c.arch) +
                       " models take " + target_kinds_text(c) + ", or " + kAllLinear + ")");
    require(t != "head" || head_out > 0,
            "lora.targets: 'head' needs a classification head (the language-model head is "
            "tied to the token embedding)");
    kinds.insert(t);
  }
  std::vector<LoraTarget> out;
  const auto add = [&](const std::string& module, const std::string& kind, int64_t in, int64_t o) {
    if (!kinds.count(kind)) return;
    require(lora.r <= std::max(in, o), "lora.r = " + std::to_string(lora.r) + " is larger than " +
                                           module + " allows (in " + std::to_string(in) + ", out " +
                                           std::to_string(o) + ")");
    out.push_back({module, kind, in, o});
  };
  for (int64_t i = 0; i < c.n_layer; ++i)
    for (const BlockModule& m : modules)
      add(blocks_prefix(c) + std::to_string(i) + "." + m.name, m.kind, m.in, m.out);
  if (head_out > 0) add("score", "head", c.d_model, head_out);
  return out;
}

int64_t lora_parameter_count(const GPTConfig& c, int64_t head_out, const LoraConfig& lora) {
  int64_t n = 0;
  for (const auto& t : lora_targets(c, head_out, lora)) n += lora.r * (t.in + t.out);
  return n;
}

nn::Linear* find_linear(GPT& body, nn::Linear* head, const std::string& module) {
  if (module == "score") return head;
  const std::string prefix = blocks_prefix(body.config());
  if (module.rfind(prefix, 0) != 0) return nullptr;
  const size_t dot = module.find('.', prefix.size());
  if (dot == std::string::npos) return nullptr;
  const std::string index = module.substr(prefix.size(), dot - prefix.size());
  if (index.empty() || index.size() > 6 ||
      index.find_first_not_of("0123456789") != std::string::npos ||
      (index.size() > 1 && index[0] == '0'))  // the block's own name: h.0, never h.00
    return nullptr;
  const size_t i = std::stoul(index);
  if (i >= body.h.size()) return nullptr;
  const std::string rest = module.substr(dot + 1);
  for (const BlockModule& m : block_modules(body.config()))
    if (m.name == rest) return block_linear(body.h[i], rest);
  return nullptr;
}

std::vector<std::string> adaptable_modules(GPT& body, nn::Linear* head) {
  std::vector<std::string> names;
  const std::vector<BlockModule> modules = block_modules(body.config());
  for (size_t i = 0; i < body.h.size(); ++i)
    for (const BlockModule& m : modules)
      names.push_back(blocks_prefix(body.config()) + std::to_string(i) + "." + m.name);
  if (head) names.push_back("score");
  return names;
}

std::string adaptable_modules_text(const GPT& body, const nn::Linear* head) {
  std::string names;
  for (const BlockModule& m : block_modules(body.config()))
    names += (names.empty() ? "" : ",") + m.name;
  return blocks_prefix(body.config()) + "<0.." + std::to_string(body.h.size() - 1) + ">.{" + names +
         "}" + (head ? ", score" : "");
}

LoraSet::LoraSet(GPT& body, nn::Linear* head, const LoraConfig& config, Rng& rng)
    : LoraSet(body, head, config,
              lora_targets(body.config(), head ? head->out_features() : 0, config), rng) {}

LoraSet::LoraSet(GPT& body, nn::Linear* head, const LoraConfig& config,
                 const std::vector<LoraTarget>& where, Rng& rng)
    : config_(config) {
  for (const auto& t : where) {
    nn::Linear* linear = find_linear(body, head, t.module);
    require(linear != nullptr, "LoRA: the model has no module " + t.module);
    require(linear->in_features() == t.in && linear->out_features() == t.out,
            "LoRA: " + t.module + " is [in " + std::to_string(linear->in_features()) + ", out " +
                std::to_string(linear->out_features()) + "], the adapter expects [in " +
                std::to_string(t.in) + ", out " + std::to_string(t.out) + "]");
    require(!linear->adapter, "LoRA: " + t.module + " already has an adapter");
    require(config.r > 0 && config.r <= std::max(t.in, t.out),
            "lora.r = " + std::to_string(config.r) + " does not fit " + t.module);
    auto adapter =
        std::make_shared<LoraAdapter>(t.in, t.out, config.r, config.scaling(), config.dropout);
    adapter->init(rng);
    linear->adapter = adapter;
    attached_.push_back({t, linear, adapter});
  }
}

LoraSet::~LoraSet() {
  for (auto& a : attached_)
    if (a.linear->adapter == a.adapter) a.linear->adapter.reset();
}

ParameterList LoraSet::parameters() {
  ParameterList list;
  for (auto& a : attached_) {
    list.push_back({a.target.module + ".lora_A.weight", &a.adapter->A});
    list.push_back({a.target.module + ".lora_B.weight", &a.adapter->B});
  }
  return list;
}

int64_t LoraSet::num_parameters() {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.param->value.numel();
  return n;
}

ParameterList with_adapters(GPT& model, LoraSet* lora) {
  ParameterList params = model.parameters();
  if (lora)
    for (const auto& p : lora->parameters()) params.push_back(p);
  return params;
}

void LoraSet::merge() {
  for (auto& a : attached_) {
    // W [out, in] += s B [out, r] @ A [r, in]
    const LoraAdapter& ad = *a.adapter;
    on(ad.A.value)
        .matmul(ad.B.value.data(), ad.A.value.data(), a.linear->weight.value.data(), ad.out(),
                ad.in(), ad.rank(), false, false, ad.scaling(), 1.0f);
    if (a.linear->adapter == a.adapter) a.linear->adapter.reset();
  }
  attached_.clear();
}

}  // namespace tinylm
