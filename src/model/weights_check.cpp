#include "model/weights_check.h"

#include "util/checked_math.h"
#include "util/error.h"
#include "util/system_memory.h"

namespace tinylm {

namespace {

void validate_named(const GPTConfig& c, const std::string& path) {
  try {
    c.validate();
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());  // the file's config, named
  }
}

// InputError unless the file holds prefix + name with that shape.
struct ShapeCheck {
  const SafeTensors& file;
  const std::string& prefix;
  const std::string& path;
  void operator()(const std::string& name, const Shape& shape, const std::string& fields) const {
    const std::string key = prefix + name;
    require(file.has(key), path + ": missing tensor " + key + " (for " + fields + ")");
    const Shape& got = file.get(key).shape;
    require(got == shape, path + ": tensor " + key + " has shape " + shape_str(got) + " but " +
                              fields + " give " + shape_str(shape));
  }
};

// The blocks prefix + "<blocks>.<n_layer - 1>.<norm>" present, "<blocks>.<n_layer>..." absent.
void expect_layers(const GPTConfig& c, const SafeTensors& file, const std::string& prefix,
                   const std::string& blocks, const std::string& norm, const std::string& path) {
  const std::string last = blocks + std::to_string(c.n_layer - 1) + norm;
  const std::string past = blocks + std::to_string(c.n_layer) + norm;
  require(file.has(prefix + last) && !file.has(prefix + past),
          path + ": model.n_layer is " + std::to_string(c.n_layer) +
              " but the file does not hold exactly that many blocks");
}

// The model holds each weight and its gradient in float32.
void expect_fits(const SafeTensors& file, const std::string& prefix, const std::string& path) {
  int64_t elems = 0;
  for (const auto& [name, entry] : file.tensors)
    if (name.rfind(prefix, 0) == 0) elems = checked_add(elems, entry.numel(), "the model");
  require_fits_in_memory(checked_mul(elems, 8, "the model"), "the model in " + path);
}

void check_llama_config_against_weights(const GPTConfig& c, const SafeTensors& file,
                                        const std::string& prefix, const std::string& path) {
  validate_named(c, path);
  const ShapeCheck expect{file, prefix, path};
  const int64_t C = c.d_model, HD = c.n_head * c.head_size(), KVD = c.kv_heads() * c.head_size();
  expect("embed_tokens.weight", {c.vocab_size, C}, "model.vocab_size and model.d_model");
  expect("norm.weight", {C}, "model.d_model");
  expect_layers(c, file, prefix, "layers.", ".input_layernorm.weight", path);
  expect("layers.0.self_attn.q_proj.weight", {HD, C},
         "model.n_head, model.head_dim, model.d_model");
  expect("layers.0.self_attn.k_proj.weight", {KVD, C},
         "model.n_kv_head, model.head_dim, model.d_model");
  expect("layers.0.mlp.gate_proj.weight", {c.d_ff, C}, "model.d_ff and model.d_model");
  expect_fits(file, prefix, path);
}

}  // namespace

void check_config_against_weights(const GPTConfig& c, const SafeTensors& file,
                                  const std::string& prefix, const std::string& path) {
  if (c.arch == Arch::Llama) return check_llama_config_against_weights(c, file, prefix, path);
  validate_named(c, path);
  const ShapeCheck expect{file, prefix, path};
  expect("wte.weight", {c.vocab_size, c.d_model}, "model.vocab_size and model.d_model");
  if (c.position == PositionEncoding::Learned)
    expect("wpe.weight", {c.block_size, c.d_model}, "model.block_size and model.d_model");
  expect("ln_f.weight", {c.d_model}, "model.d_model");
  expect_layers(c, file, prefix, "h.", ".ln_1.weight", path);
  const std::string fc = prefix + "h.0.mlp.c_fc.weight";
  require(file.has(fc), path + ": missing tensor " + fc);
  require(file.get(fc).numel() == checked_mul(c.d_model, c.ffn_hidden(), "model.d_ff"),
          path + ": tensor " + fc + " has shape " + shape_str(file.get(fc).shape) +
              ", which does not match model.d_model " + std::to_string(c.d_model) +
              " and model.d_ff " + std::to_string(c.ffn_hidden()));
  expect_fits(file, prefix, path);
}

}  // namespace tinylm
