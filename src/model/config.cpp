#include "model/config.h"

#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "util/checked_math.h"
#include "util/error.h"
#include "util/system_memory.h"

namespace tinylm {

void GPTConfig::validate() const {
  const auto positive = [](int64_t v, const char* field) {
    require(v > 0, std::string("model.") + field + " must be positive, got " + std::to_string(v));
  };
  positive(vocab_size, "vocab_size");
  positive(block_size, "block_size");
  positive(n_layer, "n_layer");
  positive(n_head, "n_head");
  positive(d_model, "d_model");
  require(d_ff >= 0, "model.d_ff must be >= 0 (0 means 4 * d_model)");
  require(d_model % n_head == 0, "model.d_model (" + std::to_string(d_model) +
                                     ") must be divisible by model.n_head (" +
                                     std::to_string(n_head) + ")");
  require(position != PositionEncoding::Sinusoidal || d_model % 2 == 0,
          "model.position: sinusoidal encoding needs an even d_model");
  require(dropout >= 0 && dropout < 1, "model.dropout must be in [0, 1)");
  require(attn_dropout < 1, "model.attn_dropout must be < 1");
  require(ln_eps > 0 && std::isfinite(ln_eps), "model.ln_eps must be a positive, finite number");
  require(!(tie_head && head_bias), "model.head_bias needs an untied head (tie_head false)");
  // Token ids are int32: a larger vocabulary cannot be indexed.
  require(vocab_size <= INT32_MAX, "model.vocab_size must be at most " + std::to_string(INT32_MAX) +
                                       ", got " + std::to_string(vocab_size));
  // The parameter count must fit 64-bit arithmetic (then every count derived from it
  // does): an upper bound of it, computed with checked operations.
  const int64_t C = d_model;
  const int64_t F = d_ff > 0 ? d_ff : checked_mul(4, C, "model.d_model");  // ffn_hidden(), checked
  const int64_t per_block =
      checked_add(checked_mul(checked_mul(4, C, "model.d_model"), C, "model.d_model"),
                  checked_mul(checked_mul(2, C, "model.d_model"), checked_add(F, 8, "model.d_ff"),
                              "model.d_ff"),
                  "model.d_ff");
  const int64_t embeddings = checked_add(
      checked_mul(checked_mul(2, vocab_size, "model.vocab_size"), C, "model.vocab_size"),
      checked_mul(block_size, C, "model.block_size"), "model.block_size");
  const int64_t bound = checked_add(
      embeddings,
      checked_mul(n_layer, checked_add(per_block, 2 * C, "model.d_model"), "model.n_layer"),
      "model.n_layer");
  // Its weights (float32) must fit this machine: refused here, before any allocation.
  require_fits_in_memory(checked_mul(bound, 4, "model.n_layer"),
                         "a model of this shape (up to " + std::to_string(bound) + " parameters)");
}

namespace {

std::string position_name(PositionEncoding p) {
  return p == PositionEncoding::Learned ? "learned" : "sinusoidal";
}

}  // namespace

nlohmann::json GPTConfig::to_json() const {
  nlohmann::json j = {{"vocab_size", vocab_size},
                      {"block_size", block_size},
                      {"n_layer", n_layer},
                      {"n_head", n_head},
                      {"d_model", d_model},
                      {"d_ff", ffn_hidden()},
                      {"activation", ops::activation_name(activation)},
                      {"position", position_name(position)},
                      {"pre_ln", pre_ln},
                      {"tie_head", tie_head},
                      {"qkv_bias", qkv_bias},
                      {"attn_proj_bias", attn_proj_bias},
                      {"ffn_bias", ffn_bias},
                      {"ln_bias", ln_bias},
                      {"head_bias", head_bias},
                      {"ln_eps", ln_eps},
                      {"dropout", dropout},
                      {"attn_dropout", attention_dropout()}};
  if (!residual) j["residual"] = false;  // written only when switched off
  return j;
}

namespace {

// A GPTConfig member of type T and its JSON key.
template <typename T>
struct Field {
  std::string_view key;
  T GPTConfig::*member;
};

// The plain fields by JSON type: the keys from_json accepts besides "preset", "bias",
// "activation" and "position". (Constant-initialized: no static initialization order.)
constexpr Field<int64_t> kIntegerFields[] = {
    {"vocab_size", &GPTConfig::vocab_size}, {"block_size", &GPTConfig::block_size},
    {"n_layer", &GPTConfig::n_layer},       {"n_head", &GPTConfig::n_head},
    {"d_model", &GPTConfig::d_model},       {"d_ff", &GPTConfig::d_ff}};
constexpr Field<bool> kBooleanFields[] = {{"pre_ln", &GPTConfig::pre_ln},
                                          {"residual", &GPTConfig::residual},
                                          {"tie_head", &GPTConfig::tie_head},
                                          {"qkv_bias", &GPTConfig::qkv_bias},
                                          {"attn_proj_bias", &GPTConfig::attn_proj_bias},
                                          {"ffn_bias", &GPTConfig::ffn_bias},
                                          {"ln_bias", &GPTConfig::ln_bias},
                                          {"head_bias", &GPTConfig::head_bias}};
constexpr Field<float> kFloatFields[] = {{"ln_eps", &GPTConfig::ln_eps},
                                         {"dropout", &GPTConfig::dropout},
                                         {"attn_dropout", &GPTConfig::attn_dropout}};

// The member with JSON key `key` in `fields`; null when none has it.
template <typename T, size_t N>
T GPTConfig::*member_named(const Field<T> (&fields)[N], const std::string& key) {
  for (const Field<T>& f : fields)
    if (f.key == key) return f.member;
  return nullptr;
}

// Typed reads of a model config's keys; InputError naming "<prefix><key>".
struct ModelFields {
  const nlohmann::json& j;
  const std::string& prefix;

  int64_t integer(const std::string& key) const {
    // An unsigned value above INT64_MAX would wrap to a negative one: out of range.
    const bool in_int64 = j[key].is_number_integer() &&
                          (!j[key].is_number_unsigned() || j[key].get<uint64_t>() <= INT64_MAX);
    require(in_int64,
            prefix + key + " must be an integer (at most " + std::to_string(INT64_MAX) + ")");
    return j[key].get<int64_t>();
  }
  bool boolean(const std::string& key) const {
    require(j[key].is_boolean(), prefix + key + " must be true or false");
    return j[key].get<bool>();
  }
  float float32(const std::string& key) const {
    require(j[key].is_number(), prefix + key + " must be a number");
    const double v = j[key].get<double>();
    require(std::isfinite(v) && std::abs(v) <= std::numeric_limits<float>::max(),
            prefix + key + " is out of the range of a 32-bit float");
    return static_cast<float>(v);
  }
  std::string string(const std::string& key) const {
    require(j[key].is_string(), prefix + key + " must be a string");
    return j[key].get<std::string>();
  }
};

// The defaults, or the preset the config names.
GPTConfig defaults_or_preset(const ModelFields& fields) {
  if (!fields.j.contains("preset")) return GPTConfig{};
  require(fields.j["preset"].is_string(), fields.prefix + "preset must be a string");
  return GPTConfig::preset(fields.j["preset"].get<std::string>());
}

ops::Activation read_activation(const ModelFields& fields, const std::string& key) {
  const std::string name = fields.string(key);
  try {
    return ops::parse_activation(name);
  } catch (const InputError& e) {
    throw InputError(fields.prefix + key + ": " + e.what());
  }
}

PositionEncoding read_position(const ModelFields& fields, const std::string& key) {
  const std::string p = fields.string(key);
  if (p == "learned") return PositionEncoding::Learned;
  if (p == "sinusoidal") return PositionEncoding::Sinusoidal;
  throw InputError(fields.prefix + key + ": unknown position encoding '" + p +
                   "' (learned or sinusoidal)");
}

// One key of the config into c; InputError for a key GPTConfig does not have.
void read_field(const ModelFields& fields, const std::string& key, GPTConfig& c) {
  if (const auto integer = member_named(kIntegerFields, key))
    c.*integer = fields.integer(key);
  else if (const auto boolean = member_named(kBooleanFields, key))
    c.*boolean = fields.boolean(key);
  else if (const auto number = member_named(kFloatFields, key))
    c.*number = fields.float32(key);
  else if (key == "bias")  // nanoGPT's one switch for the four bias flags
    c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = fields.boolean(key);
  else if (key == "activation")
    c.activation = read_activation(fields, key);
  else if (key == "position")
    c.position = read_position(fields, key);
  else
    throw InputError("unknown field " + fields.prefix + key);
}

}  // namespace

GPTConfig GPTConfig::from_json(const nlohmann::json& j, const std::string& prefix) {
  require(j.is_object(), prefix.empty()
                             ? "config must be a JSON object"
                             : prefix.substr(0, prefix.size() - 1) + " must be a JSON object");
  const ModelFields fields{j, prefix};
  GPTConfig c = defaults_or_preset(fields);
  for (const auto& item : j.items())
    if (item.key() != "preset") read_field(fields, item.key(), c);
  return c;
}

GPTConfig GPTConfig::preset(const std::string& name) {
  // {n_layer, n_head, d_model} from the GPT-2 paper / OpenAI's released checkpoints.
  static const std::map<std::string, std::array<int64_t, 3>> shapes = {
      {"gpt2-124m", {12, 12, 768}},
      {"gpt2-355m", {24, 16, 1024}},
      {"gpt2-774m", {36, 20, 1280}},
      {"gpt2-1558m", {48, 25, 1600}},
  };
  auto it = shapes.find(name);
  if (it == shapes.end())
    throw InputError("unknown preset '" + name + "' (gpt2-124m, gpt2-355m, gpt2-774m, gpt2-1558m)");
  GPTConfig c;
  c.vocab_size = 50257;
  c.block_size = 1024;
  c.n_layer = it->second[0];
  c.n_head = it->second[1];
  c.d_model = it->second[2];
  return c;
}

nn::BlockConfig block_config(const GPTConfig& c) {
  nn::BlockConfig b;
  b.d_model = c.d_model;
  b.n_head = c.n_head;
  b.d_ff = c.ffn_hidden();
  b.activation = c.activation;
  b.pre_ln = c.pre_ln;
  b.residual = c.residual;
  b.qkv_bias = c.qkv_bias;
  b.attn_proj_bias = c.attn_proj_bias;
  b.ffn_bias = c.ffn_bias;
  b.ln_bias = c.ln_bias;
  b.ln_eps = c.ln_eps;
  b.dropout = c.dropout;
  b.attn_dropout = c.attention_dropout();
  return b;
}

}  // namespace tinylm
