#include "model/gguf_llama.h"

#include <map>
#include <set>
#include <vector>

#include "model/gguf_gpt2.h"
#include "ops/rope.h"
#include "util/error.h"

namespace tinylm {
namespace {

// llama.cpp's architecture for a model of the family.
std::string gguf_arch(const GPTConfig& c) {
  if (c.qk_norm) return "qwen3";
  if (c.qkv_bias) return "qwen2";
  return "llama";
}

// (tinylm module, GGUF module) of every tensor of the model, in llama.cpp's order.
std::vector<std::pair<std::string, std::string>> llama_module_names(const GPTConfig& c) {
  std::vector<std::pair<std::string, std::string>> names = {{"embed_tokens", "token_embd"}};
  for (int64_t i = 0; i < c.n_layer; ++i) {
    const std::string l = "layers." + std::to_string(i) + ".", b = "blk." + std::to_string(i) + ".";
    names.insert(names.end(), {{l + "input_layernorm", b + "attn_norm"},
                               {l + "self_attn.q_proj", b + "attn_q"},
                               {l + "self_attn.k_proj", b + "attn_k"},
                               {l + "self_attn.v_proj", b + "attn_v"},
                               {l + "self_attn.o_proj", b + "attn_output"}});
    if (c.qk_norm)
      names.insert(names.end(), {{l + "self_attn.q_norm", b + "attn_q_norm"},
                                 {l + "self_attn.k_norm", b + "attn_k_norm"}});
    names.insert(names.end(), {{l + "post_attention_layernorm", b + "ffn_norm"},
                               {l + "mlp.gate_proj", b + "ffn_gate"},
                               {l + "mlp.up_proj", b + "ffn_up"},
                               {l + "mlp.down_proj", b + "ffn_down"}});
  }
  names.emplace_back("norm", "output_norm");
  if (!c.tie_head) names.emplace_back("lm_head", "output");
  return names;
}

bool is_llama_norm(const std::string& module) {
  return module.ends_with("norm");
}
bool is_query_or_key(const std::string& module) {
  return module.ends_with("q_proj") || module.ends_with("k_proj");
}

// Rows of heads of width D: Hugging Face's halves (row i pairs with i + D/2) to adjacent
// pairs (rows 2i, 2i + 1), or back. w [heads * D, in].
Tensor permuted_rows(const Tensor& w, int64_t D, bool to_pairs) {
  const int64_t rows = w.dim(0), in = w.dim(1), half = D / 2;
  Tensor out = Tensor::empty(w.shape());
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t head = r / D, i = r % D;
    const int64_t halves = i < half ? i : i - half;                 // pair index of a halves row
    const int64_t pairs_row = head * D + 2 * halves + (i >= half);  // where it goes as pairs
    const int64_t from = to_pairs ? r : pairs_row, to = to_pairs ? pairs_row : r;
    std::copy(w.data() + from * in, w.data() + (from + 1) * in, out.data() + to * in);
  }
  return out;
}

// llama.cpp's rope_freqs: each frequency's divisor, base / scaled inverse frequency.
Tensor rope_freq_factors(const GPTConfig& c) {
  const int64_t half = c.head_size() / 2;
  std::vector<float> base(half), scaled(half);
  ops::rope_inv_freq(c.rope_theta, c.head_size(), nullptr, base.data());
  ops::rope_inv_freq(c.rope_theta, c.head_size(), &c.rope_scaling, scaled.data());
  Tensor f = Tensor::empty({half});
  for (int64_t i = 0; i < half; ++i) f[i] = base[i] / scaled[i];
  return f;
}

uint32_t u32(int64_t v) {
  return static_cast<uint32_t>(v);
}

}  // namespace

bool is_llama_family_gguf(const Gguf& g) {
  const GgufValue* arch = g.find("general.architecture");
  if (!arch) return false;
  const std::string a = g.get_string("general.architecture");
  return a == "llama" || a == "qwen2" || a == "qwen3";
}

Gguf llama_to_gguf(GPT& model, GgmlType type, const std::string& name) {
  const GPTConfig& c = model.config();
  const std::string a = gguf_arch(c);
  require(!(c.qk_norm && c.qkv_bias),
          "llama.cpp has no architecture with both q/k norms and q/k/v biases");
  Gguf g;
  g.metadata = {
      {"general.architecture", GgufValue::string(a)},
      {"general.name", GgufValue::string(name)},
      {"general.file_type", GgufValue::u32(gguf_file_type(type))},
      {a + ".context_length", GgufValue::u32(u32(c.block_size))},
      {a + ".embedding_length", GgufValue::u32(u32(c.d_model))},
      {a + ".block_count", GgufValue::u32(u32(c.n_layer))},
      {a + ".feed_forward_length", GgufValue::u32(u32(c.d_ff))},
      {a + ".attention.head_count", GgufValue::u32(u32(c.n_head))},
      {a + ".attention.head_count_kv", GgufValue::u32(u32(c.kv_heads()))},
      {a + ".attention.key_length", GgufValue::u32(u32(c.head_size()))},
      {a + ".attention.value_length", GgufValue::u32(u32(c.head_size()))},
      {a + ".attention.layer_norm_rms_epsilon", GgufValue::f32(c.norm_eps)},
      {a + ".rope.freq_base", GgufValue::f32(c.rope_theta)},
      {a + ".rope.dimension_count", GgufValue::u32(u32(c.head_size()))},
  };
  const ops::Llama3RopeScaling& r = c.rope_scaling;
  if (r.factor > 0) {
    g.metadata.insert(g.metadata.end(),
                      {{"tinylm.rope_scaling.factor", GgufValue::f32(r.factor)},
                       {"tinylm.rope_scaling.low_freq_factor", GgufValue::f32(r.low_freq_factor)},
                       {"tinylm.rope_scaling.high_freq_factor", GgufValue::f32(r.high_freq_factor)},
                       {"tinylm.rope_scaling.original_max_position_embeddings",
                        GgufValue::u32(u32(r.original_max_position))}});
    g.tensors.push_back(gguf_tensor("rope_freqs.weight", rope_freq_factors(c), GgmlType::kF32));
  }
  std::map<std::string, Parameter*> params;
  for (auto& [pname, p] : model.parameters()) params[pname] = p;
  for (const auto& [ours, theirs] : llama_module_names(c)) {
    const Tensor& w = params.at(ours + ".weight")->value;
    const bool permute = a == "llama" && is_query_or_key(ours);
    const Tensor stored = permute ? permuted_rows(w, c.head_size(), true) : w;
    g.tensors.push_back(
        gguf_tensor(theirs + ".weight", stored,
                    is_llama_norm(ours) ? GgmlType::kF32 : gguf_matrix_type(type, w.dim(-1))));
    const auto bias = params.find(ours + ".bias");  // qwen2's q, k, v
    if (bias != params.end())
      g.tensors.push_back(gguf_tensor(theirs + ".bias", bias->second->value, GgmlType::kF32));
  }
  add_quantization_version(g);
  return g;
}

GPTConfig gguf_llama_config(const Gguf& g) {
  require(is_llama_family_gguf(g), g.source + ": not a llama, qwen2 or qwen3 file");
  const std::string a = g.get_string("general.architecture");
  GPTConfig c = GPTConfig::from_json({{"arch", "llama"}}, "");
  c.vocab_size = g.tensor("token_embd.weight").ne.back();
  c.block_size = g.get_integer(a + ".context_length");
  c.d_model = g.get_integer(a + ".embedding_length");
  c.n_layer = g.get_integer(a + ".block_count");
  c.d_ff = g.get_integer(a + ".feed_forward_length");
  c.n_head = g.get_integer(a + ".attention.head_count");
  c.n_kv_head = g.find(a + ".attention.head_count_kv")
                    ? g.get_integer(a + ".attention.head_count_kv")
                    : c.n_head;
  // key_length: a head width apart from d_model / n_head (as tinylm writes its configs,
  // head_dim 0 otherwise)
  if (g.find(a + ".attention.key_length")) {
    const int64_t D = g.get_integer(a + ".attention.key_length");
    if (c.n_head <= 0 || c.d_model % c.n_head != 0 || D != c.d_model / c.n_head) c.head_dim = D;
  }
  c.norm_eps = static_cast<float>(g.get_number(a + ".attention.layer_norm_rms_epsilon"));
  if (g.find(a + ".rope.freq_base"))
    c.rope_theta = static_cast<float>(g.get_number(a + ".rope.freq_base"));
  c.qk_norm = a == "qwen3";
  c.qkv_bias = a == "qwen2";
  bool untied = false, freqs = false;
  for (const GgufTensor& t : g.tensors) {
    untied = untied || t.name == "output.weight";
    freqs = freqs || t.name == "rope_freqs.weight";
  }
  c.tie_head = !untied;
  if (freqs) {
    require(g.find("tinylm.rope_scaling.factor") != nullptr,
            g.source +
                ": rope_freqs.weight (frequency factors) without tinylm's "
                "tinylm.rope_scaling.* keys: tinylm reads Llama 3 scaling from those");
    c.rope_scaling.factor = static_cast<float>(g.get_number("tinylm.rope_scaling.factor"));
    c.rope_scaling.low_freq_factor =
        static_cast<float>(g.get_number("tinylm.rope_scaling.low_freq_factor"));
    c.rope_scaling.high_freq_factor =
        static_cast<float>(g.get_number("tinylm.rope_scaling.high_freq_factor"));
    c.rope_scaling.original_max_position =
        g.get_integer("tinylm.rope_scaling.original_max_position_embeddings");
  }
  try {
    c.validate();
  } catch (const InputError& e) {
    throw InputError(g.source + ": " + e.what());
  }
  std::set<std::string> expected = {"rope_freqs.weight"};
  for (const auto& [ours, theirs] : llama_module_names(c)) {
    expected.insert(theirs + ".weight");
    if (c.qkv_bias && (is_query_or_key(ours) || ours.ends_with("v_proj")))
      expected.insert(theirs + ".bias");
  }
  for (const GgufTensor& t : g.tensors)
    require(expected.count(t.name) > 0, [&] {
      return g.source + ": tensor '" + t.name + "' is not part of a " + a + " model of " +
             std::to_string(c.n_layer) + " blocks (" + a + ".block_count)";
    });
  return c;
}

std::unique_ptr<GPT> llama_from_gguf(const Gguf& g) {
  const GPTConfig c = gguf_llama_config(g);
  const bool permuted = g.get_string("general.architecture") == "llama";
  auto model = std::make_unique<GPT>(c);
  std::map<std::string, Parameter*> params;
  for (auto& [pname, p] : model->parameters()) params[pname] = p;
  for (const auto& [ours, theirs] : llama_module_names(c)) {
    for (const char* part : {".weight", ".bias"}) {
      const auto it = params.find(ours + part);
      if (it == params.end()) continue;
      Tensor t = g.tensor(theirs + part).to_float();
      check_shape(t, it->second->value.shape(), g.source + ": " + theirs + part);
      if (permuted && is_query_or_key(ours) && std::string(part) == ".weight")
        t = permuted_rows(t, c.head_size(), false);
      it->second->value.copy_from(t);
    }
  }
  return model;
}

}  // namespace tinylm
