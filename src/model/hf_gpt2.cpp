#include "model/hf_gpt2.h"

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

// Parameters stored by HF's Conv1D as [in, out].
bool is_conv1d(const std::string& name) {
  for (const char* suffix :
       {"attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight"}) {
    const std::string s = suffix;
    if (name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0)
      return true;
  }
  return false;
}

// [rows, cols] -> [cols, rows]
Tensor transposed(const Tensor& t) {
  const int64_t rows = t.dim(0), cols = t.dim(1);
  Tensor out = Tensor::empty({cols, rows});
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = t[r * cols + c];
  return out;
}

}  // namespace

std::string hf_param_name(const std::string& name) {
  if (name.rfind("lm_head.", 0) == 0) return name;
  for (const char* llama : {"embed_tokens.", "layers.", "norm."})  // the llama family's
    if (name.rfind(llama, 0) == 0) return "model." + name;
  return "transformer." + name;
}

Tensor to_hf_layout(const std::string& name, const Tensor& value) {
  return is_conv1d(name) ? transposed(value) : value;
}

GPTConfig config_from_hf(const nlohmann::json& hf_json) {
  const JsonField hf(hf_json, "config.json");
  hf.require_object();
  if (hf.has("tinylm_config"))
    return GPTConfig::from_json(hf_json["tinylm_config"], "tinylm_config.");
  if (hf.has("model_type")) {
    const std::string type = hf["model_type"].string();
    require(type == "gpt2",
            "config.json: model_type '" + type + "' is not supported (gpt2, llama, qwen2, qwen3)");
  }
  const auto size = [&](const char* key) { return hf[key].integer(1, INT64_MAX); };
  GPTConfig c;
  c.vocab_size = size("vocab_size");
  c.block_size = size("n_positions");
  c.d_model = size("n_embd");
  c.n_layer = size("n_layer");
  c.n_head = size("n_head");
  if (hf.has("n_inner") && !hf["n_inner"].is_null()) c.d_ff = size("n_inner");
  const std::string act =
      hf.has("activation_function") ? hf["activation_function"].string() : "gelu_new";
  if (act == "gelu_new" || act == "gelu_pytorch_tanh")
    c.activation = ops::Activation::GeluTanh;
  else if (act == "gelu")
    c.activation = ops::Activation::GeluErf;
  else if (act == "relu")
    c.activation = ops::Activation::Relu;
  else
    throw InputError("config.json: unsupported activation_function '" + act + "'");
  if (hf.has("layer_norm_epsilon")) c.norm_eps = hf["layer_norm_epsilon"].float_number();
  if (hf.has("tie_word_embeddings")) c.tie_head = hf["tie_word_embeddings"].boolean();
  if (hf.has("resid_pdrop")) c.dropout = hf["resid_pdrop"].float_number();
  c.attn_dropout = hf.has("attn_pdrop") ? hf["attn_pdrop"].float_number() : c.dropout;
  c.validate();
  return c;
}

nlohmann::json config_to_hf(const GPTConfig& c, int32_t eot) {
  const char* act = c.activation == ops::Activation::GeluTanh  ? "gelu_new"
                    : c.activation == ops::Activation::GeluErf ? "gelu"
                                                               : "relu";
  nlohmann::json config = {
      {"architectures", {"GPT2LMHeadModel"}},
      {"model_type", "gpt2"},
      {"vocab_size", c.vocab_size},
      {"n_positions", c.block_size},
      {"n_embd", c.d_model},
      {"n_layer", c.n_layer},
      {"n_head", c.n_head},
      {"n_inner", c.d_ff > 0 ? nlohmann::json(c.d_ff) : nlohmann::json(nullptr)},
      {"activation_function", act},
      {"layer_norm_epsilon", shortest_decimal(c.norm_eps)},
      {"tie_word_embeddings", c.tie_head},
      {"resid_pdrop", shortest_decimal(c.dropout)},
      {"embd_pdrop", shortest_decimal(c.dropout)},
      {"attn_pdrop", shortest_decimal(c.attention_dropout())},
      {"tinylm_config", c.to_json()}};
  if (eot >= 0) config.update({{"bos_token_id", eot}, {"eos_token_id", eot}});
  return config;
}

bool is_hf_model_dir(const std::string& dir) {
  return file_exists(dir + "/config.json") && file_exists(dir + "/model.safetensors");
}

std::unique_ptr<GPT> load_hf_gpt2(const std::string& dir) {
  require(is_hf_model_dir(dir),
          dir + ": not a model folder (needs config.json and model.safetensors)");
  GPTConfig config;
  try {
    config = config_from_hf(read_json_file(dir + "/config.json"));
  } catch (const InputError& e) {
    const std::string what = e.what();
    throw InputError(what.rfind("config.json", 0) == 0 ? dir + "/" + what : what);
  }
  const std::string path = dir + "/model.safetensors";
  const SafeTensors file = load_safetensors(path);
  // Saved with or without the "transformer." prefix.
  const std::string prefix = file.has("transformer.wte.weight") ? "transformer." : "";
  check_config_against_weights(config, file, prefix, path);
  auto model = std::make_unique<GPT>(config);
  for (auto& [name, param] : model->parameters()) {
    std::string stored = hf_param_name(name);
    if (!file.has(stored)) stored = name;  // saved without the "transformer." prefix
    require(file.has(stored), path + ": missing tensor " + hf_param_name(name));
    Tensor t = file.get(stored).to_float();
    if (is_conv1d(name)) {
      require(t.ndim() == 2, path + ": " + stored + " must be 2-D, got " + shape_str(t.shape()));
      t = transposed(t);
    }
    check_shape(t, param->value.shape(), path + ": " + stored);
    param->value.copy_from(t);
  }
  return model;
}

std::vector<std::pair<std::string, Tensor>> hf_tensors(GPT& model) {
  const GPTConfig& c = model.config();
  require(c.position == PositionEncoding::Learned && c.pre_ln && !c.head_bias,
          "the Hugging Face GPT-2 layout needs learned positions, pre-LN blocks and no head bias");
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::set<std::string> present;
  for (auto& [name, param] : model.parameters()) {
    tensors.emplace_back(hf_param_name(name), to_hf_layout(name, param->value));
    present.insert(name);
  }
  // HF's GPT-2 has every bias: write zeros for the ones this model does without.
  const auto zero_bias = [&](const std::string& name, int64_t size) {
    if (!present.count(name)) tensors.emplace_back(hf_param_name(name), Tensor::zeros({size}));
  };
  for (int64_t i = 0; i < c.n_layer; ++i) {
    const std::string p = "h." + std::to_string(i) + ".";
    zero_bias(p + "ln_1.bias", c.d_model);
    zero_bias(p + "attn.c_attn.bias", 3 * c.d_model);
    zero_bias(p + "attn.c_proj.bias", c.d_model);
    zero_bias(p + "ln_2.bias", c.d_model);
    zero_bias(p + "mlp.c_fc.bias", c.ffn_hidden());
    zero_bias(p + "mlp.c_proj.bias", c.d_model);
  }
  zero_bias("ln_f.bias", c.d_model);
  return tensors;
}

void save_hf_gpt2(GPT& model, const std::string& dir, int32_t eot) {
  const GPTConfig& c = model.config();
  const auto tensors = hf_tensors(model);
  create_own_folder(dir);  // a link at dir is replaced, not written through
  save_safetensors(dir + "/model.safetensors", tensors, {{"format", "pt"}});
  write_file_atomic(dir + "/config.json", config_to_hf(c, eot).dump(2) + "\n");
}

void write_hf_generation_config(int32_t eot, const std::string& dir) {
  nlohmann::json g = {{"_from_model_config", true}};
  if (eot >= 0) g.update({{"bos_token_id", eot}, {"eos_token_id", eot}});
  write_file_atomic(dir + "/generation_config.json", g.dump(2) + "\n");
}

}  // namespace tinylm
