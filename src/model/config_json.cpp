// GPTConfig's JSON form: one table of fields per JSON type, each field marked with the
// families (`arch`) that have it, so that a config mixing families is refused naming the
// field, and to_json writes each family's fields only.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "model/config.h"
#include "util/error.h"

namespace tinylm {

namespace {

// Which families have a field.
enum Families : unsigned { kGpt2 = 1, kLlama = 2, kBoth = kGpt2 | kLlama };

unsigned family_bit(Arch a) {
  return a == Arch::Llama ? kLlama : kGpt2;
}

// A GPTConfig member of type T, its JSON key, and the families that have it.
template <typename T>
struct Field {
  std::string_view key;
  T GPTConfig::*member;
  unsigned families;
};

// The plain fields by JSON type: the keys from_json accepts besides "arch", "preset" and
// kSpecialFields' (below). Some members have a key per family
// (ln_eps / norm_eps, qkv_bias / attention_bias: the names each family's users know).
// (Constant-initialized: no static initialization order.)
constexpr Field<int64_t> kIntegerFields[] = {
    {"vocab_size", &GPTConfig::vocab_size, kBoth}, {"block_size", &GPTConfig::block_size, kBoth},
    {"n_layer", &GPTConfig::n_layer, kBoth},       {"n_head", &GPTConfig::n_head, kBoth},
    {"n_kv_head", &GPTConfig::n_kv_head, kLlama},  {"head_dim", &GPTConfig::head_dim, kLlama},
    {"d_model", &GPTConfig::d_model, kBoth},       {"d_ff", &GPTConfig::d_ff, kBoth}};
constexpr Field<bool> kBooleanFields[] = {{"pre_ln", &GPTConfig::pre_ln, kGpt2},
                                          {"residual", &GPTConfig::residual, kGpt2},
                                          {"tie_head", &GPTConfig::tie_head, kBoth},
                                          {"qkv_bias", &GPTConfig::qkv_bias, kGpt2},
                                          {"attention_bias", &GPTConfig::qkv_bias, kLlama},
                                          {"attn_proj_bias", &GPTConfig::attn_proj_bias, kGpt2},
                                          {"ffn_bias", &GPTConfig::ffn_bias, kGpt2},
                                          {"ln_bias", &GPTConfig::ln_bias, kGpt2},
                                          {"head_bias", &GPTConfig::head_bias, kGpt2},
                                          {"qk_norm", &GPTConfig::qk_norm, kLlama}};
constexpr Field<float> kFloatFields[] = {{"ln_eps", &GPTConfig::norm_eps, kGpt2},
                                         {"norm_eps", &GPTConfig::norm_eps, kLlama},
                                         {"rope_theta", &GPTConfig::rope_theta, kLlama},
                                         {"dropout", &GPTConfig::dropout, kBoth},
                                         {"attn_dropout", &GPTConfig::attn_dropout, kBoth}};

// The field with JSON key `key` in `fields`; null when none has it.
template <typename T, size_t N>
const Field<T>* field_named(const Field<T> (&fields)[N], std::string_view key) {
  for (const Field<T>& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

// Every field of `fields` that family `a` has, into j.
template <typename T, size_t N>
void write_fields(const Field<T> (&fields)[N], const GPTConfig& c, nlohmann::json& j) {
  for (const Field<T>& f : fields)
    if (f.families & family_bit(c.arch)) j[std::string(f.key)] = c.*f.member;
}

std::string position_name(PositionEncoding p) {
  return p == PositionEncoding::Learned ? "learned" : "sinusoidal";
}

nlohmann::json rope_scaling_json(const ops::Llama3RopeScaling& r) {
  if (r.factor == 0) return nullptr;
  return {{"rope_type", "llama3"},
          {"factor", r.factor},
          {"low_freq_factor", r.low_freq_factor},
          {"high_freq_factor", r.high_freq_factor},
          {"original_max_position_embeddings", r.original_max_position}};
}

}  // namespace

nlohmann::json GPTConfig::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  if (arch != Arch::Gpt2) j["arch"] = arch_name(arch);  // gpt2 configs read as before
  write_fields(kIntegerFields, *this, j);
  write_fields(kBooleanFields, *this, j);
  write_fields(kFloatFields, *this, j);
  j["d_ff"] = ffn_hidden();
  j["attn_dropout"] = attention_dropout();
  if (arch == Arch::Llama) {
    j["rope_scaling"] = rope_scaling_json(rope_scaling);
    return j;
  }
  j["activation"] = ops::activation_name(activation);
  j["position"] = position_name(position);
  if (residual) j.erase("residual");  // written only when switched off
  return j;
}

namespace {

// Typed reads of a model config's keys; InputError naming "<prefix><key>".
struct ModelFields {
  const nlohmann::json& j;
  const std::string& prefix;

  int64_t integer(const std::string& key) const { return integer_of(j[key], key); }
  int64_t integer_of(const nlohmann::json& v, const std::string& key) const {
    // An unsigned value above INT64_MAX would wrap to a negative one: out of range.
    const bool in_int64 =
        v.is_number_integer() && (!v.is_number_unsigned() || v.get<uint64_t>() <= INT64_MAX);
    require(in_int64,
            prefix + key + " must be an integer (at most " + std::to_string(INT64_MAX) + ")");
    return v.get<int64_t>();
  }
  bool boolean(const std::string& key) const {
    require(j[key].is_boolean(), prefix + key + " must be true or false");
    return j[key].get<bool>();
  }
  float float32(const std::string& key) const { return float_of(j[key], key); }
  float float_of(const nlohmann::json& v, const std::string& key) const {
    require(v.is_number(), prefix + key + " must be a number");
    const double d = v.get<double>();
    require(std::isfinite(d) && std::abs(d) <= std::numeric_limits<float>::max(),
            prefix + key + " is out of the range of a 32-bit float");
    return static_cast<float>(d);
  }
  std::string string(const std::string& key) const {
    require(j[key].is_string(), prefix + key + " must be a string");
    return j[key].get<std::string>();
  }
};

Arch read_arch(const ModelFields& fields) {
  if (!fields.j.contains("arch")) return Arch::Gpt2;
  const std::string a = fields.string("arch");
  if (a == "gpt2") return Arch::Gpt2;
  if (a == "llama") return Arch::Llama;
  throw InputError(fields.prefix + "arch: unknown architecture '" + a + "' (gpt2 or llama)");
}

// The llama family's defaults (Hugging Face's LlamaConfig): RMSNorm eps 1e-6, rotary
// positions with base 10000, no biases, an untied head.
GPTConfig llama_defaults() {
  GPTConfig c;
  c.arch = Arch::Llama;
  c.position = PositionEncoding::Rotary;
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = c.head_bias = false;
  c.tie_head = false;
  c.norm_eps = 1e-6f;
  return c;
}

// The defaults of the config's arch, or the preset it names.
GPTConfig defaults_or_preset(const ModelFields& fields) {
  const Arch arch = read_arch(fields);
  if (!fields.j.contains("preset")) return arch == Arch::Llama ? llama_defaults() : GPTConfig{};
  require(fields.j["preset"].is_string(), fields.prefix + "preset must be a string");
  GPTConfig c = GPTConfig::preset(fields.j["preset"].get<std::string>());
  require(!fields.j.contains("arch") || c.arch == arch,
          fields.prefix + "arch: preset '" + fields.j["preset"].get<std::string>() + "' is " +
              arch_name(c.arch) + ", not " + arch_name(arch));
  return c;
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

// null (none) or {"rope_type": "llama3", factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings}, as Hugging Face's config.json has it.
ops::Llama3RopeScaling read_rope_scaling(const ModelFields& fields, const std::string& key) {
  const nlohmann::json& r = fields.j[key];
  if (r.is_null()) return {};
  require(r.is_object(), fields.prefix + key + " must be null or an object");
  const std::string type = r.value("rope_type", r.value("type", std::string()));
  require(type == "llama3", fields.prefix + key + ".rope_type: '" + type +
                                "' is not supported (llama3, or rope_scaling null)");
  ops::Llama3RopeScaling s;
  const auto number = [&](const char* name) {
    require(r.contains(name), fields.prefix + key + "." + name + " is missing");
    return fields.float_of(r[name], key + "." + name);
  };
  s.factor = number("factor");
  s.low_freq_factor = number("low_freq_factor");
  s.high_freq_factor = number("high_freq_factor");
  const char* original = "original_max_position_embeddings";
  require(r.contains(original), fields.prefix + key + "." + original + " is missing");
  s.original_max_position = fields.integer_of(r[original], key + "." + original);
  return s;
}

// InputError unless c's family has the field `key`.
void require_family(const ModelFields& in, const std::string& key, unsigned families,
                    const GPTConfig& c) {
  require(families & family_bit(c.arch),
          in.prefix + key + " is not a field of arch " + arch_name(c.arch) +
              (families == kLlama ? " (it is arch llama's: set " + in.prefix + "arch)"
                                  : " (the llama family's blocks are RMSNorm, RoPE, SwiGLU)"));
}

template <typename T, size_t N>
bool read_table_field(const Field<T> (&fields)[N], const ModelFields& in, const std::string& key,
                      GPTConfig& c, T (ModelFields::*read)(const std::string&) const) {
  const Field<T>* f = field_named(fields, key);
  if (!f) return false;
  require_family(in, key, f->families, c);
  c.*(f->member) = (in.*read)(key);
  return true;
}

// The fields read by a function of their own, and the families that have them.
struct SpecialField {
  std::string_view key;
  unsigned families;
  void (*read)(const ModelFields& in, const std::string& key, GPTConfig& c);
};
constexpr SpecialField kSpecialFields[] = {
    {"bias", kGpt2,  // nanoGPT's one switch for the four bias flags
     [](const ModelFields& in, const std::string& key, GPTConfig& c) {
       c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = in.boolean(key);
     }},
    {"activation", kGpt2,
     [](const ModelFields& in, const std::string& key, GPTConfig& c) {
       c.activation = read_activation(in, key);
     }},
    {"position", kGpt2,
     [](const ModelFields& in, const std::string& key, GPTConfig& c) {
       c.position = read_position(in, key);
     }},
    {"rope_scaling", kLlama, [](const ModelFields& in, const std::string& key, GPTConfig& c) {
       c.rope_scaling = read_rope_scaling(in, key);
     }}};

// One key of the config into c; InputError for a key GPTConfig does not have, or one
// that c's family does not.
void read_field(const ModelFields& fields, const std::string& key, GPTConfig& c) {
  if (read_table_field(kIntegerFields, fields, key, c, &ModelFields::integer) ||
      read_table_field(kBooleanFields, fields, key, c, &ModelFields::boolean) ||
      read_table_field(kFloatFields, fields, key, c, &ModelFields::float32))
    return;
  for (const SpecialField& f : kSpecialFields) {
    if (f.key != key) continue;
    require_family(fields, key, f.families, c);
    return f.read(fields, key, c);
  }
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
    if (item.key() != "preset" && item.key() != "arch") read_field(fields, item.key(), c);
  return c;
}

}  // namespace tinylm
