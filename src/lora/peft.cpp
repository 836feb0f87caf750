// PEFT LoRA folders in and out (see peft.h).
#include "lora/peft.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "io/safetensors.h"
#include "tensor/tensor.h"
#include "util/error.h"
#include "util/files.h"
#include "util/float_text.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

const std::string kPrefix = "base_model.model.";

// PEFT's name for a tinylm target kind.
std::string peft_target(const std::string& kind) {
  return kind == "head" ? "score" : kind;
}

// Does PEFT's target `t` select module `m`? (exact name, or a suffix after a dot)
bool selects(const std::string& t, const std::string& m) {
  return m == t || (m.size() > t.size() && m.compare(m.size() - t.size(), t.size(), t) == 0 &&
                    m[m.size() - t.size() - 1] == '.');
}

// The tensor's values as float; InputError naming it when one is NaN or infinite.
Tensor finite_values(const SafeTensorEntry& entry, const std::string& name) {
  Tensor t = entry.to_float();
  const float* v = t.data();
  require(std::all_of(v, v + t.numel(), [](float x) { return std::isfinite(x); }),
          name + " holds NaN or infinite values");
  return t;
}

std::string kind_of(const std::string& module) {
  if (module == "score") return "head";
  return module.substr(module.rfind('.') + 1);
}

// The two files of a PEFT adapter folder.
struct AdapterPaths {
  std::string config, tensors;  // adapter_config.json, adapter_model.safetensors

  // "DIR/adapter_config.json: key", naming a field in messages.
  std::string field(const std::string& key) const { return config + ": " + key; }
};

// What adapter_config.json says: the LoRA settings and PEFT's target_modules.
struct AdapterConfig {
  LoraConfig lora;                   // lora.targets is set later, from the matched modules
  std::vector<std::string> targets;  // PEFT's names: "c_attn", "h.0.attn.c_attn", "score"
};

// One module's LoRA tensors in the file; either may be missing until checked.
struct TensorPair {
  const SafeTensorEntry* a = nullptr;  // lora_A.weight [r, in]
  const SafeTensorEntry* b = nullptr;  // lora_B.weight [out, r]
};

// adapter_model.safetensors by module: the (A, B) pairs and a saved head.
struct AdapterTensors {
  std::map<std::string, TensorPair> modules;
  const SafeTensorEntry* saved_head = nullptr;  // score.weight, when the head trained fully
};

// Is the key there with a value other than null?
bool given(const JsonField& cfg, const char* key) {
  return cfg.has(key) && !cfg[key].is_null();
}

// peft_type, r, lora_alpha, lora_dropout and use_rslora.
LoraConfig read_lora_settings(const JsonField& cfg, const AdapterPaths& paths) {
  require(cfg["peft_type"].string() == "LORA", paths.field("peft_type") + " must be \"LORA\"");
  LoraConfig lora;
  lora.r = cfg["r"].integer(1, std::numeric_limits<int32_t>::max());
  lora.alpha = cfg["lora_alpha"].float_number();
  if (given(cfg, "lora_dropout")) lora.dropout = cfg["lora_dropout"].float_number();
  require(lora.dropout >= 0 && lora.dropout < 1,
          paths.field("lora_dropout") + " must be in [0, 1)");
  if (given(cfg, "use_rslora")) lora.rslora = cfg["use_rslora"].boolean();
  return lora;
}

// InputError for what PEFT has and tinylm does not implement: DoRA, a bias other than
// "none", per-module ranks or alphas.
void refuse_unsupported_options(const JsonField& cfg, const AdapterPaths& paths) {
  const nlohmann::json& json = cfg.raw();
  require(!given(cfg, "use_dora") || json["use_dora"] == false,
          paths.field("use_dora") + ": DoRA is not supported");
  require(!cfg.has("bias") || json["bias"] == "none",
          paths.field("bias") + ": only \"none\" is supported");
  for (const char* pattern : {"rank_pattern", "alpha_pattern"})
    require(!given(cfg, pattern) || json[pattern].empty(),
            paths.field(pattern) + ": per-module ranks or alphas are not supported");
}

// target_modules: one name or a list of them, not empty.
std::vector<std::string> read_target_modules(const JsonField& cfg, const AdapterPaths& paths) {
  std::vector<std::string> targets;
  if (cfg.has("target_modules") && cfg["target_modules"].is_string())
    targets = {cfg["target_modules"].string()};
  else
    targets = cfg["target_modules"].strings();
  require(!targets.empty(), paths.field("target_modules") + " names no module");
  return targets;
}

AdapterConfig read_adapter_config(const AdapterPaths& paths) {
  const nlohmann::json json = read_json_file(paths.config);  // duplicate keys refused
  const JsonField cfg(json, paths.config);
  cfg.require_object();
  AdapterConfig config;
  config.lora = read_lora_settings(cfg, paths);
  refuse_unsupported_options(cfg, paths);
  config.targets = read_target_modules(cfg, paths);
  return config;
}

// The file's tensors by module. Every tensor must be a LoRA A or B weight of one of the
// base's modules, named exactly ("transformer.h.00..." is not h.0), or the saved head.
AdapterTensors index_adapter_tensors(const SafeTensors& file, const std::string& path, GPT& body,
                                     nn::Linear* head) {
  const std::vector<std::string> adaptable = adaptable_modules(body, head);
  const std::set<std::string> known(adaptable.begin(), adaptable.end());
  const std::string known_list = adaptable_modules_text(body, head);
  AdapterTensors index;
  for (const auto& key : file.names) {
    require(key.rfind(kPrefix, 0) == 0,
            path + ": tensor '" + key + "' does not start with " + kPrefix);
    const std::string rest = key.substr(kPrefix.size());
    if (rest == "score.weight") {
      index.saved_head = &file.get(key);
      continue;
    }
    const bool is_a = rest.size() > 14 && rest.ends_with(".lora_A.weight");
    const bool is_b = rest.size() > 14 && rest.ends_with(".lora_B.weight");
    require(is_a || is_b, path + ": tensor '" + key + "' is not a LoRA A or B weight");
    const std::string module = rest.substr(0, rest.size() - 14);
    require(module != "lm_head", path + ": tensor '" + key +
                                     "': LoRA on lm_head (tied to the token embedding) is not "
                                     "supported; targets are the blocks' linear layers and a "
                                     "classifier's score");
    require(known.count(module) != 0, path + ": tensor '" + key + "' is for module " + module +
                                          ", which the base model does not have" +
                                          " (its modules are " + known_list + ")");
    TensorPair& pair = index.modules[module];
    (is_a ? pair.a : pair.b) = &file.get(key);
  }
  require(!index.modules.empty(), path + ": no LoRA tensors");
  return index;
}

// Does any target select `module`? Every target that does is added to `used`.
bool mark_selecting_targets(const std::vector<std::string>& targets, const std::string& module,
                            std::set<std::string>& used) {
  bool selected = false;
  for (const auto& t : targets)
    if (selects(t, module)) selected = true, used.insert(t);
  return selected;
}

// The adapter of `module` as the base's linear layer shapes it; InputError when the
// file's A [r, in] or B [out, r] do not fit it, or r > max(in, out).
LoraTarget fitted_target(const std::string& module, const TensorPair& pair, int64_t r, GPT& body,
                         nn::Linear* head, const AdapterPaths& paths) {
  nn::Linear* linear = find_linear(body, head, module);
  const int64_t in = linear->in_features(), out = linear->out_features();
  const std::string name = paths.tensors + ": " + kPrefix + module;
  const std::string rank = " (r " + std::to_string(r) + ")";
  require(pair.a->shape == Shape{r, in}, name + ".lora_A.weight is " + shape_str(pair.a->shape) +
                                             ", the base needs " + shape_str({r, in}) + rank);
  require(pair.b->shape == Shape{out, r}, name + ".lora_B.weight is " + shape_str(pair.b->shape) +
                                              ", the base needs " + shape_str({out, r}) + rank);
  require(r <= std::max(in, out), paths.field("r") + " = " + std::to_string(r) +
                                      " is larger than " + module + " allows (in " +
                                      std::to_string(in) + ", out " + std::to_string(out) + ")");
  return {module, kind_of(module), in, out};
}

// The modules the file adapts, in model order, each with both tensors, selected by a
// target and fitting the base; every target must select one of them.
std::vector<LoraTarget> match_targets(const AdapterConfig& config, const AdapterTensors& tensors,
                                      GPT& body, nn::Linear* head, const AdapterPaths& paths) {
  std::vector<LoraTarget> where;
  std::set<std::string> used_targets;
  for (const auto& module : adaptable_modules(body, head)) {
    auto it = tensors.modules.find(module);
    if (it == tensors.modules.end()) continue;
    const TensorPair& pair = it->second;
    require(pair.a && pair.b, paths.tensors + ": module " + module + " has lora_" +
                                  (pair.a ? "A" : "B") + " but no lora_" + (pair.a ? "B" : "A"));
    require(
        mark_selecting_targets(config.targets, module, used_targets),
        paths.tensors + ": module " + module + " is not among " + paths.field("target_modules"));
    where.push_back(fitted_target(module, pair, config.lora.r, body, head, paths));
  }
  for (const auto& t : config.targets)
    require(used_targets.count(t),
            paths.field("target_modules") + ": '" + t + "' selects no tensor of " + paths.tensors);
  return where;
}

// The kinds of the matched modules (c_attn, ..., head), each once, in model order.
std::vector<std::string> target_kinds(const std::vector<LoraTarget>& where) {
  std::vector<std::string> kinds;
  for (const auto& w : where)
    if (std::find(kinds.begin(), kinds.end(), w.kind) == kinds.end()) kinds.push_back(w.kind);
  return kinds;
}

// The file's A and B values into each attached adapter.
void copy_adapter_values(LoraSet& set, const AdapterTensors& tensors, const std::string& path) {
  for (auto& att : set.attached()) {
    const std::string name = path + ": " + kPrefix + att.target.module;
    const TensorPair& pair = tensors.modules.at(att.target.module);
    att.adapter->A.value.copy_from(finite_values(*pair.a, name + ".lora_A.weight"));
    att.adapter->B.value.copy_from(finite_values(*pair.b, name + ".lora_B.weight"));
  }
}

// A saved score.weight into the classifier's head (which the base must have).
void copy_saved_head(const SafeTensorEntry& saved, nn::Linear* head, const std::string& path) {
  require(head != nullptr,
          path + ": has a classification head (score.weight) but the base has none");
  const Tensor t = finite_values(saved, path + ": " + kPrefix + "score.weight");
  check_shape(t, head->weight.value.shape(), path + ": " + kPrefix + "score.weight");
  head->weight.value.copy_from(t);
}

}  // namespace

void save_peft_adapter(LoraSet& lora, const std::string& dir, const PeftInfo& info) {
  const LoraConfig& c = lora.config();
  nlohmann::json targets = nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& t : c.targets) {
    if (t == kAllLinear) {  // the kinds it selected, in model order
      for (auto& a : lora.attached())
        if (a.target.kind != "head" && seen.insert(peft_target(a.target.kind)).second)
          targets.push_back(peft_target(a.target.kind));
    } else if (seen.insert(peft_target(t)).second) {
      targets.push_back(peft_target(t));
    }
  }
  // PEFT's flag for weights stored [in, out]: GPT-2's Conv1D layers, not the llama
  // family's nn.Linear ones.
  bool conv1d = false;
  for (auto& a : lora.attached()) conv1d = conv1d || a.target.module.rfind("transformer.", 0) == 0;
  nlohmann::json config = {
      {"peft_type", "LORA"},
      {"task_type", info.task_type},
      {"r", c.r},
      {"lora_alpha", shortest_decimal(c.alpha)},
      {"lora_dropout", shortest_decimal(c.dropout)},
      {"target_modules", targets},
      {"fan_in_fan_out", conv1d},
      {"bias", "none"},
      {"use_rslora", c.rslora},
      {"use_dora", false},
      {"init_lora_weights", true},
      {"modules_to_save",
       info.saved_head ? nlohmann::json::array({"score"}) : nlohmann::json(nullptr)},
      {"base_model_name_or_path", info.base_model_name_or_path.empty()
                                      ? nlohmann::json(nullptr)
                                      : nlohmann::json(info.base_model_name_or_path)},
      {"inference_mode", true},
      {"layers_to_transform", nullptr},
      {"rank_pattern", nlohmann::json::object()},
      {"alpha_pattern", nlohmann::json::object()}};
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& p : lora.parameters()) tensors.emplace_back(kPrefix + p.name, p.param->value);
  if (info.saved_head) tensors.emplace_back(kPrefix + "score.weight", info.saved_head->value);
  create_own_folder(dir);  // a link at dir is replaced, not written through
  save_safetensors(dir + "/adapter_model.safetensors", tensors, {{"format", "pt"}});
  write_file_atomic(dir + "/adapter_config.json", config.dump(2) + "\n");
}

std::unique_ptr<LoraSet> load_peft_adapter(GPT& body, nn::Linear* head, const std::string& dir) {
  const AdapterPaths paths{dir + "/adapter_config.json", dir + "/adapter_model.safetensors"};
  require(file_exists(paths.config), paths.config + ": not found (not a PEFT adapter folder?)");
  require(file_exists(paths.tensors), paths.tensors + ": not found (not a PEFT adapter folder?)");
  AdapterConfig config = read_adapter_config(paths);
  const SafeTensors file = load_safetensors(paths.tensors);
  const AdapterTensors tensors = index_adapter_tensors(file, paths.tensors, body, head);
  const std::vector<LoraTarget> where = match_targets(config, tensors, body, head, paths);
  config.lora.targets = target_kinds(where);

  Rng rng(0);  // the values come from the file
  auto set = std::make_unique<LoraSet>(body, head, config.lora, where, rng);
  copy_adapter_values(*set, tensors, paths.tensors);
  if (tensors.saved_head) copy_saved_head(*tensors.saved_head, head, paths.tensors);
  return set;
}

}  // namespace tinylm
