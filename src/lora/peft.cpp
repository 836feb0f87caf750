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

}  // namespace

void save_peft_adapter(LoraSet& lora, const std::string& dir, const PeftInfo& info) {
  const LoraConfig& c = lora.config();
  nlohmann::json targets = nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& t : c.targets)
    if (seen.insert(peft_target(t)).second) targets.push_back(peft_target(t));
  nlohmann::json config = {
      {"peft_type", "LORA"},
      {"task_type", info.task_type},
      {"r", c.r},
      {"lora_alpha", shortest_decimal(c.alpha)},
      {"lora_dropout", shortest_decimal(c.dropout)},
      {"target_modules", targets},
      {"fan_in_fan_out", true},
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
  const std::string config_path = dir + "/adapter_config.json";
  const std::string tensors_path = dir + "/adapter_model.safetensors";
  require(file_exists(config_path), config_path + ": not found (not a PEFT adapter folder?)");
  require(file_exists(tensors_path), tensors_path + ": not found (not a PEFT adapter folder?)");
  const nlohmann::json json = read_json_file(config_path);  // duplicate keys refused
  const JsonField cfg(json, config_path);
  cfg.require_object();
  const auto field = [&](const std::string& key) { return config_path + ": " + key; };
  const auto given = [&](const char* key) { return cfg.has(key) && !cfg[key].is_null(); };
  require(cfg["peft_type"].string() == "LORA", field("peft_type") + " must be \"LORA\"");
  LoraConfig lora;
  lora.r = cfg["r"].integer(1, std::numeric_limits<int32_t>::max());
  lora.alpha = cfg["lora_alpha"].float_number();
  if (given("lora_dropout")) lora.dropout = cfg["lora_dropout"].float_number();
  require(lora.dropout >= 0 && lora.dropout < 1, field("lora_dropout") + " must be in [0, 1)");
  if (given("use_rslora")) lora.rslora = cfg["use_rslora"].boolean();
  require(!given("use_dora") || json["use_dora"] == false,
          field("use_dora") + ": DoRA is not supported");
  require(!cfg.has("bias") || json["bias"] == "none",
          field("bias") + ": only \"none\" is supported");
  for (const char* pattern : {"rank_pattern", "alpha_pattern"})
    require(!given(pattern) || json[pattern].empty(),
            field(pattern) + ": per-module ranks or alphas are not supported");
  std::vector<std::string> targets;
  if (cfg.has("target_modules") && cfg["target_modules"].is_string())
    targets = {cfg["target_modules"].string()};
  else
    targets = cfg["target_modules"].strings();
  require(!targets.empty(), field("target_modules") + " names no module");

  const SafeTensors file = load_safetensors(tensors_path);
  // Every tensor must name one of these exactly ("transformer.h.00..." is not h.0).
  const std::vector<std::string> adaptable = adaptable_modules(body, head);
  const std::set<std::string> known(adaptable.begin(), adaptable.end());
  const std::string known_list = "transformer.h.<0.." + std::to_string(body.h.size() - 1) +
                                 ">.{attn.c_attn,attn.c_proj,mlp.c_fc,mlp.c_proj}" +
                                 (head ? ", score" : "");
  std::map<std::string, std::pair<const SafeTensorEntry*, const SafeTensorEntry*>> modules;  // A, B
  const SafeTensorEntry* saved_head = nullptr;
  for (const auto& key : file.names) {
    require(key.rfind(kPrefix, 0) == 0,
            tensors_path + ": tensor '" + key + "' does not start with " + kPrefix);
    const std::string rest = key.substr(kPrefix.size());
    if (rest == "score.weight") {
      saved_head = &file.get(key);
      continue;
    }
    const bool is_a = rest.size() > 14 && rest.ends_with(".lora_A.weight");
    const bool is_b = rest.size() > 14 && rest.ends_with(".lora_B.weight");
    require(is_a || is_b, tensors_path + ": tensor '" + key + "' is not a LoRA A or B weight");
    const std::string module = rest.substr(0, rest.size() - 14);
    require(module != "lm_head", tensors_path + ": tensor '" + key +
                                     "': LoRA on lm_head (tied to the token embedding) is not "
                                     "supported; targets are c_attn, c_proj, c_fc and a "
                                     "classifier's score");
    require(known.count(module) != 0, tensors_path + ": tensor '" + key + "' is for module " +
                                          module + ", which the base model does not have" +
                                          " (its modules are " + known_list + ")");
    (is_a ? modules[module].first : modules[module].second) = &file.get(key);
  }
  require(!modules.empty(), tensors_path + ": no LoRA tensors");

  std::vector<LoraTarget> where;
  std::set<std::string> used_targets;
  for (const auto& l : adaptable_modules(body, head)) {
    auto it = modules.find(l);
    if (it == modules.end()) continue;
    const auto [a, b] = it->second;
    require(a && b, tensors_path + ": module " + l + " has lora_" + (a ? "A" : "B") +
                        " but no lora_" + (a ? "B" : "A"));
    bool selected = false;
    for (const auto& t : targets)
      if (selects(t, l)) selected = true, used_targets.insert(t);
    require(selected, tensors_path + ": module " + l + " is not among " + field("target_modules"));
    nn::Linear* linear = find_linear(body, head, l);
    const int64_t in = linear->in_features(), out = linear->out_features();
    require(a->shape == Shape{lora.r, in}, tensors_path + ": " + kPrefix + l +
                                               ".lora_A.weight is " + shape_str(a->shape) +
                                               ", the base needs " + shape_str({lora.r, in}) +
                                               " (r " + std::to_string(lora.r) + ")");
    require(b->shape == Shape{out, lora.r}, tensors_path + ": " + kPrefix + l +
                                                ".lora_B.weight is " + shape_str(b->shape) +
                                                ", the base needs " + shape_str({out, lora.r}) +
                                                " (r " + std::to_string(lora.r) + ")");
    require(lora.r <= std::max(in, out),
            field("r") + " = " + std::to_string(lora.r) + " is larger than " + l + " allows (in " +
                std::to_string(in) + ", out " + std::to_string(out) + ")");
    where.push_back({l, kind_of(l), in, out});
  }
  for (const auto& t : targets)
    require(used_targets.count(t),
            field("target_modules") + ": '" + t + "' selects no tensor of " + tensors_path);
  lora.targets.clear();
  for (const auto& w : where)
    if (std::find(lora.targets.begin(), lora.targets.end(), w.kind) == lora.targets.end())
      lora.targets.push_back(w.kind);

  Rng rng(0);  // the values come from the file
  auto set = std::make_unique<LoraSet>(body, head, lora, where, rng);
  for (auto& att : set->attached()) {
    const std::string name = tensors_path + ": " + kPrefix + att.target.module;
    att.adapter->A.value.copy_from(
        finite_values(*modules[att.target.module].first, name + ".lora_A.weight"));
    att.adapter->B.value.copy_from(
        finite_values(*modules[att.target.module].second, name + ".lora_B.weight"));
  }
  if (saved_head) {
    require(head != nullptr,
            tensors_path + ": has a classification head (score.weight) but the base has none");
    const Tensor t = finite_values(*saved_head, tensors_path + ": " + kPrefix + "score.weight");
    check_shape(t, head->weight.value.shape(), tensors_path + ": " + kPrefix + "score.weight");
    head->weight.value.copy_from(t);
  }
  return set;
}

}  // namespace tinylm
