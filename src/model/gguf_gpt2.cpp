#include "model/gguf_gpt2.h"

#include <map>
#include <set>
#include <vector>

#include "util/error.h"

namespace tinylm {
namespace {

// (tinylm name without ".weight"/".bias", GGUF name without it) for one block.
std::vector<std::pair<std::string, std::string>> block_names(int64_t i) {
  const std::string h = "h." + std::to_string(i) + ".", b = "blk." + std::to_string(i) + ".";
  return {{h + "ln_1", b + "attn_norm"},          {h + "attn.c_attn", b + "attn_qkv"},
          {h + "attn.c_proj", b + "attn_output"}, {h + "ln_2", b + "ffn_norm"},
          {h + "mlp.c_fc", b + "ffn_up"},         {h + "mlp.c_proj", b + "ffn_down"}};
}

// Every (tinylm, GGUF) module name of a model, in llama.cpp's order.
std::vector<std::pair<std::string, std::string>> module_names(const GPTConfig& c) {
  std::vector<std::pair<std::string, std::string>> names = {{"wte", "token_embd"},
                                                            {"wpe", "position_embd"}};
  for (int64_t i = 0; i < c.n_layer; ++i)
    for (auto& pair : block_names(i)) names.push_back(pair);
  names.emplace_back("ln_f", "output_norm");
  if (!c.tie_head) names.emplace_back("lm_head", "output");
  return names;
}

bool is_norm(const std::string& module) {
  return module.ends_with("ln_1") || module.ends_with("ln_2") || module == "ln_f";
}
bool has_bias(const std::string& module) {
  return module != "wte" && module != "wpe" && module != "lm_head";
}

void check_exportable(const GPTConfig& c) {
  require(c.pre_ln, "model.pre_ln false: llama.cpp's gpt2 has pre-LN blocks only");
  require(c.residual, "model.residual false: llama.cpp's gpt2 has residual connections");
  require(c.activation == ops::Activation::GeluTanh, [&] {
    return "model.activation " + ops::activation_name(c.activation) +
           ": llama.cpp's gpt2 uses GELU (tanh approximation) only";
  });
  require(!c.head_bias, "model.head_bias: llama.cpp's gpt2 head has no bias");
}

}  // namespace

GgmlType gguf_matrix_type(GgmlType type, int64_t row) {
  return type == GgmlType::kQ8_0 && row % kQ8Block != 0 ? GgmlType::kF16 : type;
}

uint32_t gguf_file_type(GgmlType type) {
  switch (type) {
    case GgmlType::kF32:
      return 0;
    case GgmlType::kF16:
      return 1;
    case GgmlType::kQ8_0:
      return 7;
    case GgmlType::kBF16:
      return 32;
  }
  return 0;
}

Gguf gpt_to_gguf(GPT& model, GgmlType type, const std::string& name) {
  const GPTConfig& c = model.config();
  require(c.arch == Arch::Gpt2, "gpt_to_gguf: a gpt2 model (the llama family: gguf_llama.h)");
  check_exportable(c);
  std::map<std::string, Parameter*> params;
  for (auto& [pname, p] : model.parameters()) params[pname] = p;
  Gguf g;
  g.metadata = {
      {"general.architecture", GgufValue::string("gpt2")},
      {"general.name", GgufValue::string(name)},
      {"general.file_type", GgufValue::u32(gguf_file_type(type))},
      {"gpt2.context_length", GgufValue::u32(static_cast<uint32_t>(c.block_size))},
      {"gpt2.embedding_length", GgufValue::u32(static_cast<uint32_t>(c.d_model))},
      {"gpt2.feed_forward_length", GgufValue::u32(static_cast<uint32_t>(c.ffn_hidden()))},
      {"gpt2.block_count", GgufValue::u32(static_cast<uint32_t>(c.n_layer))},
      {"gpt2.attention.head_count", GgufValue::u32(static_cast<uint32_t>(c.n_head))},
      {"gpt2.attention.layer_norm_epsilon", GgufValue::f32(c.norm_eps)},
  };
  for (const auto& [ours, theirs] : module_names(c)) {
    // The position table is a parameter only when learned; the sinusoidal one is fixed.
    const Tensor& w = ours == "wpe" ? model.wpe.weight.value : params.at(ours + ".weight")->value;
    const bool matrix = !is_norm(ours) && ours != "wpe";
    g.tensors.push_back(gguf_tensor(theirs + ".weight", w,
                                    matrix ? gguf_matrix_type(type, w.dim(-1)) : GgmlType::kF32));
    if (!has_bias(ours)) continue;
    const auto it = params.find(ours + ".bias");
    const int64_t size = w.ndim() == 2 ? w.dim(0) : w.dim(-1);  // [out, in] or [C]
    const Tensor bias = it != params.end() ? it->second->value : Tensor::zeros({size});
    g.tensors.push_back(gguf_tensor(theirs + ".bias", bias, GgmlType::kF32));
  }
  add_quantization_version(g);
  return g;
}

GPTConfig gguf_gpt2_config(const Gguf& g) {
  const std::string arch = g.get_string("general.architecture");
  require(arch == "gpt2", [&] {
    return g.source + ": architecture '" + arch +
           "' is not one tinylm reads (gpt2, llama, qwen2, qwen3)";
  });
  GPTConfig c;
  c.vocab_size = g.tensor("token_embd.weight").ne.back();
  c.block_size = g.get_integer("gpt2.context_length");
  c.d_model = g.get_integer("gpt2.embedding_length");
  c.d_ff = g.get_integer("gpt2.feed_forward_length");
  require(c.d_ff > 0, g.source + ": gpt2.feed_forward_length must be positive");
  c.n_layer = g.get_integer("gpt2.block_count");
  c.n_head = g.get_integer("gpt2.attention.head_count");
  c.norm_eps = static_cast<float>(g.get_number("gpt2.attention.layer_norm_epsilon"));
  bool untied = false;
  for (const GgufTensor& t : g.tensors) untied = untied || t.name == "output.weight";
  c.tie_head = !untied;
  try {
    c.validate();
  } catch (const InputError& e) {
    throw InputError(g.source + ": " + e.what());
  }
  // Every tensor must belong to this shape (llama.cpp counts them too): a block count
  // that leaves blocks out, or a stray tensor, is a broken file, not a smaller model.
  std::set<std::string> expected;
  for (const auto& [ours, theirs] : module_names(c)) {
    expected.insert(theirs + ".weight");
    if (has_bias(ours)) expected.insert(theirs + ".bias");
  }
  for (const GgufTensor& t : g.tensors)
    require(expected.count(t.name) > 0, [&] {
      return g.source + ": tensor '" + t.name + "' is not part of a gpt2 model of " +
             std::to_string(c.n_layer) + " blocks (gpt2.block_count)";
    });
  return c;
}

std::unique_ptr<GPT> gpt_from_gguf(const Gguf& g) {
  const GPTConfig c = gguf_gpt2_config(g);
  auto model = std::make_unique<GPT>(c);
  std::map<std::string, Parameter*> params;
  for (auto& [pname, p] : model->parameters()) params[pname] = p;
  for (const auto& [ours, theirs] : module_names(c)) {
    for (const char* part : {".weight", ".bias"}) {
      const auto it = params.find(ours + part);
      if (it == params.end()) continue;
      const Tensor t = g.tensor(theirs + part).to_float();
      check_shape(t, it->second->value.shape(), g.source + ": " + theirs + part);
      it->second->value.copy_from(t);
    }
  }
  return model;
}

}  // namespace tinylm
