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

void validate(const LoraConfig& lora) {
  require(lora.r > 0, "lora.r must be a positive integer, got " + std::to_string(lora.r));
  require(std::isfinite(lora.alpha) && lora.alpha > 0, "lora.alpha must be a positive number");
  require(lora.dropout >= 0.0f && lora.dropout < 1.0f, "lora.dropout must be in [0, 1)");
  require(!lora.targets.empty(), "lora.targets: empty (any of c_attn, c_proj, c_fc, head)");
}

std::vector<LoraTarget> lora_targets(const GPTConfig& c, int64_t head_out, const LoraConfig& lora) {
  validate(lora);
  std::set<std::string> kinds;
  for (const auto& t : lora.targets) {
    require(t == "c_attn" || t == "c_proj" || t == "c_fc" || t == "head",
            "lora.targets: unknown target '" + t + "' (expected c_attn, c_proj, c_fc or head)");
    require(t != "head" || head_out > 0,
            "lora.targets: 'head' needs a classification head (the language-model head is "
            "tied to the token embedding)");
    kinds.insert(t);
  }
  const int64_t C = c.d_model, F = c.ffn_hidden();
  std::vector<LoraTarget> out;
  const auto add = [&](const std::string& module, const std::string& kind, int64_t in, int64_t o) {
    if (!kinds.count(kind)) return;
    require(lora.r <= std::max(in, o), "lora.r = " + std::to_string(lora.r) + " is larger than " +
                                           module + " allows (in " + std::to_string(in) + ", out " +
                                           std::to_string(o) + ")");
    out.push_back({module, kind, in, o});
  };
  for (int64_t i = 0; i < c.n_layer; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    add(p + "attn.c_attn", "c_attn", C, 3 * C);
    add(p + "attn.c_proj", "c_proj", C, C);
    add(p + "mlp.c_fc", "c_fc", C, F);
    add(p + "mlp.c_proj", "c_proj", F, C);
  }
  if (head_out > 0) add("score", "head", C, head_out);
  return out;
}

int64_t lora_parameter_count(const GPTConfig& c, int64_t head_out, const LoraConfig& lora) {
  int64_t n = 0;
  for (const auto& t : lora_targets(c, head_out, lora)) n += lora.r * (t.in + t.out);
  return n;
}

nn::Linear* find_linear(GPT& body, nn::Linear* head, const std::string& module) {
  if (module == "score") return head;
  const std::string prefix = "transformer.h.";
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
  auto& block = body.h[i];
  if (rest == "attn.c_attn") return &block.attn.c_attn;
  if (rest == "attn.c_proj") return &block.attn.c_proj;
  if (rest == "mlp.c_fc") return &block.mlp.c_fc;
  if (rest == "mlp.c_proj") return &block.mlp.c_proj;
  return nullptr;
}

std::vector<std::string> adaptable_modules(GPT& body, nn::Linear* head) {
  std::vector<std::string> names;
  for (size_t i = 0; i < body.h.size(); ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    for (const char* m : {"attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"})
      names.push_back(p + m);
  }
  if (head) names.push_back("score");
  return names;
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
