// OpenAI's original GPT-2 checkpoint (see openai_gpt2.h).
#include "model/openai_gpt2.h"

#include <nlohmann/json.hpp>

#include "io/tf_bundle.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "h.3.attn.c_attn" -> "h3/attn/c_attn"; "ln_f" -> "ln_f".
std::string module_path(const std::string& module) {
  std::string out = module;
  if (out.rfind("h.", 0) == 0) out.erase(1, 1);  // "h.3.attn" -> "h3.attn"
  for (char& c : out)
    if (c == '.') c = '/';
  return out;
}

// [1, in, out] (or [in, out]) -> [out, in].
Tensor from_conv_kernel(const Tensor& w, const std::string& what) {
  const bool leading_one = w.ndim() == 3 && w.dim(0) == 1;
  require(leading_one || w.ndim() == 2,
          what + ": a kernel must be [1, in, out], got " + shape_str(w.shape()));
  const int64_t in = w.dim(w.ndim() - 2), out = w.dim(w.ndim() - 1);
  Tensor t = Tensor::empty({out, in});
  for (int64_t i = 0; i < in; ++i)
    for (int64_t o = 0; o < out; ++o) t[o * in + i] = w[i * out + o];
  return t;
}

}  // namespace

bool is_openai_gpt2_dir(const std::string& dir) {
  return file_exists(dir + "/hparams.json") &&
         file_exists(openai_checkpoint_prefix(dir) + ".index");
}

std::string openai_checkpoint_prefix(const std::string& dir) {
  const std::string file = dir + "/checkpoint";
  if (file_exists(file)) {
    const std::string text = read_file(file);
    const std::string key = "model_checkpoint_path: \"";
    const size_t at = text.find(key);
    const size_t end = at == std::string::npos ? at : text.find('"', at + key.size());
    if (end != std::string::npos) {
      const std::string path = text.substr(at + key.size(), end - at - key.size());
      if (!path.empty()) return path[0] == '/' ? path : dir + "/" + path;
    }
  }
  return dir + "/model.ckpt";
}

GPTConfig config_from_openai_hparams(const nlohmann::json& hparams) {
  const JsonField h(hparams, "hparams.json");
  h.require_object();
  const auto size = [&](const char* key) { return h[key].integer(1, INT64_MAX); };
  GPTConfig c;
  c.vocab_size = size("n_vocab");
  c.block_size = size("n_ctx");
  c.d_model = size("n_embd");
  c.n_head = size("n_head");
  c.n_layer = size("n_layer");
  c.activation = ops::Activation::GeluTanh;
  c.norm_eps = 1e-5f;
  c.tie_head = true;
  c.dropout = c.attn_dropout = 0.1f;
  c.validate();
  return c;
}

std::string openai_variable_name(const std::string& param) {
  const size_t dot = param.rfind('.');
  require(dot != std::string::npos, "no GPT-2 variable for " + param);
  const std::string module = param.substr(0, dot), kind = param.substr(dot + 1);
  if (module == "wte" || module == "wpe") return "model/" + module;
  const bool norm = ends_with(module, "ln_1") || ends_with(module, "ln_2") || module == "ln_f";
  require(kind == "weight" || kind == "bias", "no GPT-2 variable for " + param);
  return "model/" + module_path(module) + "/" + (kind == "bias" ? "b" : norm ? "g" : "w");
}

std::unique_ptr<GPT> load_openai_gpt2(const std::string& dir) {
  require(is_openai_gpt2_dir(dir),
          dir + ": not OpenAI's GPT-2 layout (needs hparams.json and model.ckpt.index)");
  GPTConfig config;
  try {
    config = config_from_openai_hparams(read_json_file(dir + "/hparams.json"));
  } catch (const InputError& e) {
    throw InputError(dir + "/" + e.what());
  }
  const TfBundle bundle = open_tf_bundle(openai_checkpoint_prefix(dir));
  auto model = std::make_unique<GPT>(config);
  for (auto& [name, param] : model->parameters()) {
    const std::string variable = openai_variable_name(name);
    const std::string what = bundle.prefix + ": " + variable;
    Tensor t = bundle.read_float(variable);  // InputError naming a missing variable
    if (ends_with(variable, "/w")) t = from_conv_kernel(t, what);
    check_shape(t, param->value.shape(), what);
    param->value.copy_from(t);
  }
  return model;
}

}  // namespace tinylm
