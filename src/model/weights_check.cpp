#include "model/weights_check.h"

#include "util/checked_math.h"
#include "util/error.h"
#include "util/system_memory.h"

namespace tinylm {

void check_config_against_weights(const GPTConfig& c, const SafeTensors& file,
                                  const std::string& prefix, const std::string& path) {
  try {
    c.validate();
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());  // the file's config, named
  }
  const auto expect = [&](const std::string& name, const Shape& shape, const std::string& fields) {
    const std::string key = prefix + name;
    require(file.has(key), path + ": missing tensor " + key + " (for " + fields + ")");
    const Shape& got = file.get(key).shape;
    require(got == shape, path + ": tensor " + key + " has shape " + shape_str(got) + " but " +
                              fields + " give " + shape_str(shape));
  };
  expect("wte.weight", {c.vocab_size, c.d_model}, "model.vocab_size and model.d_model");
  if (c.position == PositionEncoding::Learned)
    expect("wpe.weight", {c.block_size, c.d_model}, "model.block_size and model.d_model");
  expect("ln_f.weight", {c.d_model}, "model.d_model");
  const std::string last = "h." + std::to_string(c.n_layer - 1) + ".ln_1.weight";
  const std::string past = "h." + std::to_string(c.n_layer) + ".ln_1.weight";
  require(file.has(prefix + last) && !file.has(prefix + past),
          path + ": model.n_layer is " + std::to_string(c.n_layer) +
              " but the file does not hold exactly that many blocks");
  const std::string fc = prefix + "h.0.mlp.c_fc.weight";
  require(file.has(fc), path + ": missing tensor " + fc);
  require(file.get(fc).numel() == checked_mul(c.d_model, c.ffn_hidden(), "model.d_ff"),
          path + ": tensor " + fc + " has shape " + shape_str(file.get(fc).shape) +
              ", which does not match model.d_model " + std::to_string(c.d_model) +
              " and model.d_ff " + std::to_string(c.ffn_hidden()));
  // The model holds each weight and its gradient in float32.
  int64_t elems = 0;
  for (const auto& [name, entry] : file.tensors)
    if (name.rfind(prefix, 0) == 0) elems = checked_add(elems, entry.numel(), "the model");
  require_fits_in_memory(checked_mul(elems, 8, "the model"), "the model in " + path);
}

}  // namespace tinylm
