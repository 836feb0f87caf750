// Trainable sets: parse "head" / "last:N" / "all" / "lora" and freeze the rest.
#include "run/trainable.h"

#include <set>

#include "util/error.h"

namespace tinylm {

TrainableSet TrainableSet::parse(const std::string& spec) {
  TrainableSet s;
  if (spec == "head")
    s.kind = TrainableKind::Head;
  else if (spec == "all")
    s.kind = TrainableKind::All;
  else if (spec == "lora")
    s.kind = TrainableKind::Lora;
  else if (spec.rfind("last:", 0) == 0) {
    const std::string n = spec.substr(5);
    require(!n.empty() && n.size() < 10 && n.find_first_not_of("0123456789") == std::string::npos,
            "trainable '" + spec + "': N of last:N must be a non-negative integer");
    s.kind = TrainableKind::LastBlocks;
    s.last_blocks = std::stoll(n);
  } else {
    throw InputError("trainable '" + spec + "': expected head, last:N, all or lora");
  }
  return s;
}

std::string TrainableSet::to_string() const {
  switch (kind) {
    case TrainableKind::Head:
      return "head";
    case TrainableKind::All:
      return "all";
    case TrainableKind::Lora:
      return "lora";
    case TrainableKind::LastBlocks:
      break;
  }
  return "last:" + std::to_string(last_blocks);
}

void apply_trainable(GPT& body, const ParameterList& head, const TrainableSet& set) {
  const int64_t L = body.config().n_layer;
  if (set.kind == TrainableKind::LastBlocks)
    require(set.last_blocks <= L, "trainable 'last:" + std::to_string(set.last_blocks) +
                                      "': the model has only " + std::to_string(L) + " blocks");
  const bool all = set.kind == TrainableKind::All;
  for (const auto& p : body.parameters()) p.param->set_trainable(all);
  for (const auto& p : head) p.param->set_trainable(true);
  if (set.kind == TrainableKind::LastBlocks) {
    for (int64_t i = L - set.last_blocks; i < L; ++i) {
      ParameterList block;
      body.h[i].parameters(block, "");
      for (const auto& p : block) p.param->set_trainable(true);
    }
    ParameterList norm;
    body.ln_f.parameters(norm, "");
    for (const auto& p : norm) p.param->set_trainable(true);
  }
}

void train_only(const ParameterList& params, const std::vector<std::string>& names,
                const std::string& what) {
  std::set<std::string> wanted(names.begin(), names.end());
  std::set<std::string> known;
  for (const auto& p : params) known.insert(p.name);
  for (const auto& n : wanted) require(known.count(n), what + ": no parameter named '" + n + "'");
  for (const auto& p : params) p.param->set_trainable(wanted.count(p.name) > 0);
}

Trainables choose_lm_trainables(GPT& model, const TrainableSet& set, const LoraConfig& lora,
                                Rng& rng, const std::string& option) {
  const bool tied = model.config().tie_head;
  require(set.kind != TrainableKind::Head || !tied,
          option +
              " 'head': the model's LM head is tied to the token embedding; "
              "train last:N, all or lora instead");
  ParameterList head;  // an untied LM head (and its bias) trains under head and last:N
  if (!tied) head.push_back({"lm_head.weight", &model.lm_head_weight});
  if (model.config().head_bias) head.push_back({"lm_head.bias", &model.lm_head_bias});
  Trainables t;
  if (set.kind == TrainableKind::Lora) {
    t.lora = std::make_unique<LoraSet>(model, nullptr, lora, rng);
    head.clear();  // under lora every base weight is frozen
  }
  apply_trainable(model, head, set);
  if (t.lora)
    for (const auto& p : t.lora->parameters()) p.param->set_trainable(true);
  t.params = with_adapters(model, t.lora.get());
  return t;
}

void set_decay(const ParameterList& params, const DecayRule& rule) {
  for (const auto& [name, p] : params) {
    const bool embedding = name == "wte.weight" || name == "wpe.weight";
    p->decay = rule.all || (p->value.ndim() >= 2 && (rule.embeddings || !embedding));
  }
}

Trainables choose_trainables(GPT& model, const TrainConfig& config) {
  Rng rng(config.train.seed + 3);
  Trainables t = choose_lm_trainables(model, TrainableSet::parse(config.train.trainable),
                                      config.lora, rng, "train.trainable");
  set_decay(t.params, {false, config.train.decay_embeddings});
  return t;
}

void apply_trainable(SequenceClassifier& model, const TrainableSet& set) {
  nn::AdapterSet* adapters = model.adapters();
  if (set.kind == TrainableKind::Lora)
    require(adapters != nullptr,
            "trainable 'lora': no LoRA adapters attached (lora.r, lora.targets)");
  // Under lora the head trains fully unless it carries its own adapter.
  const bool head_trains = set.kind != TrainableKind::Lora || !model.score.adapter;
  apply_trainable(model.body(), head_trains ? model.head_parameters() : ParameterList{}, set);
  if (!head_trains)
    for (const auto& p : model.head_parameters()) p.param->set_trainable(false);
  if (adapters)  // adapters train only under lora
    for (const auto& p : adapters->parameters())
      p.param->set_trainable(set.kind == TrainableKind::Lora);
}

}  // namespace tinylm
