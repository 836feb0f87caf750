#include "model/hf_llama.h"

#include <nlohmann/json.hpp>
#include <set>

#include "io/safetensors.h"
#include "model/weights_check.h"
#include "util/error.h"
#include "util/files.h"
#include "util/float_text.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// The model types of the family and their own rules: Qwen2 has q/k/v biases, Qwen3 has
// per-head q/k norms.
struct LlamaModelType {
  const char* model_type;
  bool qkv_bias;  // always, whatever attention_bias says
  bool qk_norm;
};
constexpr LlamaModelType kModelTypes[] = {
    {"llama", false, false}, {"qwen2", true, false}, {"qwen3", false, true}};

const LlamaModelType* model_type_of(const nlohmann::json& hf) {
  if (!hf.is_object() || !hf.contains("model_type") || !hf["model_type"].is_string())
    return nullptr;
  const std::string type = hf["model_type"].get<std::string>();
  for (const LlamaModelType& t : kModelTypes)
    if (type == t.model_type) return &t;
  return nullptr;
}

// rope_theta and rope_scaling: transformers 4 keeps them at the top level (rope_scaling
// null or an object), transformers 5 in one object, rope_parameters. Both name the kind
// rope_type ("type" in older files): default, or llama3 with its factors.
void read_rope(const JsonField& hf, GPTConfig& c) {
  const bool v5 = hf.has("rope_parameters") && !hf["rope_parameters"].is_null();
  const JsonField theta_in = v5 ? hf["rope_parameters"] : hf;
  if (theta_in.has("rope_theta")) c.rope_theta = theta_in["rope_theta"].float_number();
  const char* scaling_key = v5 ? "rope_parameters" : "rope_scaling";
  if (!hf.has(scaling_key) || hf[scaling_key].is_null()) return;
  const JsonField r = hf[scaling_key];
  const char* type_key = r.has("rope_type") ? "rope_type" : "type";
  const std::string type = r.has(type_key) ? r[type_key].string() : "default";
  if (type == "default") return;
  require(type == "llama3",
          r.name() + ": rope_type '" + type + "' is not supported (default or llama3)");
  c.rope_scaling.factor = r["factor"].float_number();
  c.rope_scaling.low_freq_factor = r["low_freq_factor"].float_number();
  c.rope_scaling.high_freq_factor = r["high_freq_factor"].float_number();
  c.rope_scaling.original_max_position =
      r["original_max_position_embeddings"].integer(1, INT64_MAX);
}

// Every tensor of the folder's weights: model.safetensors, or the shards its index lists.
SafeTensors load_weights(const std::string& dir) {
  const std::string single = dir + "/model.safetensors";
  if (file_exists(single)) return load_safetensors(single);
  const std::string index_path = dir + "/model.safetensors.index.json";
  require(file_exists(index_path), dir + ": no model.safetensors or model.safetensors.index.json");
  const nlohmann::json index = read_json_file(index_path);
  const JsonField map = JsonField(index, index_path)["weight_map"];
  map.require_object();
  std::set<std::string> shards;
  for (const auto& item : map.raw().items()) shards.insert(map[item.key()].string());
  SafeTensors all;
  all.source = index_path;
  for (const std::string& shard : shards) {
    require(shard.find('/') == std::string::npos && shard != ".." && !shard.empty(),
            index_path + ": shard '" + shard + "' is not a file name in the folder");
    SafeTensors part = load_safetensors(dir + "/" + shard);
    for (const std::string& name : part.names) {
      require(!all.has(name), index_path + ": tensor " + name + " is in two shards");
      all.names.push_back(name);
      all.tensors.emplace(name, std::move(part.tensors.at(name)));
    }
  }
  for (const auto& item : map.raw().items())
    require(all.has(item.key()), index_path + ": " + item.key() + " is not in its shard");
  return all;
}

}  // namespace

bool is_llama_family_config(const nlohmann::json& hf) {
  return model_type_of(hf) != nullptr;
}

GPTConfig llama_config_from_hf(const nlohmann::json& hf_json) {
  const JsonField hf(hf_json, "config.json");
  hf.require_object();
  const LlamaModelType* type = model_type_of(hf_json);
  require(type != nullptr, "config.json: model_type must be llama, qwen2 or qwen3");
  const auto size = [&](const char* key) { return hf[key].integer(1, INT64_MAX); };
  GPTConfig c = GPTConfig::from_json({{"arch", "llama"}}, "");
  c.vocab_size = size("vocab_size");
  c.block_size = size("max_position_embeddings");
  c.d_model = size("hidden_size");
  c.d_ff = size("intermediate_size");
  c.n_layer = size("num_hidden_layers");
  c.n_head = size("num_attention_heads");
  c.n_kv_head = hf.has("num_key_value_heads") && !hf["num_key_value_heads"].is_null()
                    ? size("num_key_value_heads")
                    : c.n_head;
  // head_dim kept only apart from hidden_size / heads (0 otherwise, as tinylm's configs)
  if (hf.has("head_dim") && !hf["head_dim"].is_null()) {
    const int64_t D = size("head_dim");
    if (c.d_model % c.n_head != 0 || D != c.d_model / c.n_head) c.head_dim = D;
  }
  if (hf.has("rms_norm_eps")) c.norm_eps = hf["rms_norm_eps"].float_number();
  read_rope(hf, c);
  c.tie_head = hf.has("tie_word_embeddings") && hf["tie_word_embeddings"].boolean();
  c.qkv_bias = type->qkv_bias || (hf.has("attention_bias") && hf["attention_bias"].boolean());
  c.qk_norm = type->qk_norm;
  const std::string act = hf.has("hidden_act") ? hf["hidden_act"].string() : "silu";
  require(act == "silu", "config.json: hidden_act '" + act + "' is not supported (silu)");
  require(!(hf.has("mlp_bias") && hf["mlp_bias"].boolean()),
          "config.json: mlp_bias true is not supported (the family's MLPs have no biases)");
  c.validate();
  return c;
}

nlohmann::json llama_config_to_hf(const GPTConfig& c, int32_t eot) {
  require(!(c.qk_norm && c.qkv_bias),
          "q/k norms with q/k/v biases: no Hugging Face architecture has both (Qwen3's "
          "attention_bias also biases o_proj)");
  const char* type = c.qk_norm ? "qwen3" : c.qkv_bias ? "qwen2" : "llama";
  const char* architecture = c.qk_norm    ? "Qwen3ForCausalLM"
                             : c.qkv_bias ? "Qwen2ForCausalLM"
                                          : "LlamaForCausalLM";
  const ops::Llama3RopeScaling& r = c.rope_scaling;
  nlohmann::json scaling = nullptr;
  if (r.factor > 0)
    scaling = {{"rope_type", "llama3"},
               {"factor", shortest_decimal(r.factor)},
               {"low_freq_factor", shortest_decimal(r.low_freq_factor)},
               {"high_freq_factor", shortest_decimal(r.high_freq_factor)},
               {"original_max_position_embeddings", r.original_max_position}};
  nlohmann::json config = {{"architectures", {architecture}},
                           {"model_type", type},
                           {"vocab_size", c.vocab_size},
                           {"max_position_embeddings", c.block_size},
                           {"hidden_size", c.d_model},
                           {"intermediate_size", c.d_ff},
                           {"num_hidden_layers", c.n_layer},
                           {"num_attention_heads", c.n_head},
                           {"num_key_value_heads", c.kv_heads()},
                           {"head_dim", c.head_size()},
                           {"hidden_act", "silu"},
                           {"rms_norm_eps", shortest_decimal(c.norm_eps)},
                           {"rope_theta", shortest_decimal(c.rope_theta)},
                           {"rope_scaling", scaling},
                           {"tie_word_embeddings", c.tie_head},
                           {"attention_bias", false},
                           {"attention_dropout", shortest_decimal(c.attention_dropout())},
                           {"torch_dtype", "float32"}};
  if (std::string(type) == "llama") config["mlp_bias"] = false;
  if (eot >= 0) config.update({{"bos_token_id", eot}, {"eos_token_id", eot}});
  return config;
}

void save_hf_llama(GPT& model, const std::string& dir, int32_t eot) {
  const nlohmann::json config = llama_config_to_hf(model.config(), eot);  // may refuse
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (auto& [name, param] : model.parameters())
    tensors.emplace_back(name.rfind("lm_head.", 0) == 0 ? name : "model." + name, param->value);
  create_own_folder(dir);  // a link at dir is replaced, not written through
  save_safetensors(dir + "/model.safetensors", tensors, {{"format", "pt"}});
  write_file_atomic(dir + "/config.json", config.dump(2) + "\n");
}

std::unique_ptr<GPT> load_hf_llama(const std::string& dir) {
  GPTConfig config;
  try {
    config = llama_config_from_hf(read_json_file(dir + "/config.json"));
  } catch (const InputError& e) {
    const std::string what = e.what();
    throw InputError(what.rfind("config.json", 0) == 0 ? dir + "/" + what : what);
  }
  const SafeTensors file = load_weights(dir);
  check_config_against_weights(config, file, "model.", file.source);
  auto model = std::make_unique<GPT>(config);
  std::set<std::string> read;
  for (auto& [name, param] : model->parameters()) {
    const std::string stored = name.rfind("lm_head.", 0) == 0 ? name : "model." + name;
    require(file.has(stored), file.source + ": missing tensor " + stored);
    const Tensor t = file.get(stored).to_float();
    check_shape(t, param->value.shape(), file.source + ": " + stored);
    param->value.copy_from(t);
    read.insert(stored);
  }
  // A tensor the config does not account for means the config misdescribes the model
  // (a tied head with an lm_head, q/k norms without qk_norm): refused, not ignored. Old
  // checkpoints' rotary inv_freq buffers are derived from the config and skipped.
  for (const std::string& name : file.names)
    require(read.count(name) || name.find("rotary_emb.inv_freq") != std::string::npos,
            file.source + ": tensor " + name +
                " does not belong to the model config.json "
                "describes");
  return model;
}

}  // namespace tinylm
