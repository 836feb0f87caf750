// A model written as OpenAI's original GPT-2 folder (hparams.json, checkpoint, and a
// TensorFlow checkpoint laid out as TensorFlow writes it, tests/io/tf_bundle_writer.h),
// for tests that read such folders. The variables are the model's Hugging Face tensors
// under OpenAI's names: a Conv1D [in, out] is the kernel [1, in, out] with the same bytes.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/tf_bundle_writer.h"
#include "model/hf_gpt2.h"
#include "model/openai_gpt2.h"
#include "util/files.h"

namespace tinylm::testing {

inline std::vector<tfw::BundleTensor> openai_variables(GPT& model) {
  std::vector<tfw::BundleTensor> out;
  for (const auto& [hf_name, t] : hf_tensors(model)) {
    const std::string param = hf_name.substr(hf_name.find('.') + 1);  // "transformer."
    const std::string variable = openai_variable_name(param);
    Shape shape = t.shape();
    if (variable.ends_with("/w")) shape = {1, t.dim(0), t.dim(1)};
    out.push_back(tfw::float_tensor(variable, shape, t.to_vector()));
  }
  return out;
}

inline nlohmann::json openai_hparams(const GPTConfig& c) {
  return {{"n_vocab", c.vocab_size},
          {"n_ctx", c.block_size},
          {"n_embd", c.d_model},
          {"n_head", c.n_head},
          {"n_layer", c.n_layer}};
}

// dir gets hparams.json, checkpoint, model.ckpt.{index,data-00000-of-00001} of `vars`, and
// encoder.json + vocab.bpe copied from vocab_dir when one is given.
inline void write_openai_folder(const std::string& dir, const nlohmann::json& hparams,
                                const std::vector<tfw::BundleTensor>& vars,
                                const std::string& vocab_dir = "") {
  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/hparams.json", hparams.dump());
  write_file_atomic(dir + "/checkpoint",
                    "model_checkpoint_path: \"model.ckpt\"\n"
                    "all_model_checkpoint_paths: \"model.ckpt\"\n");
  tfw::write_files(dir + "/model.ckpt", tfw::build_bundle(vars));
  for (const char* f : {"encoder.json", "vocab.bpe"})
    if (!vocab_dir.empty()) write_file_atomic(dir + "/" + f, read_file(vocab_dir + "/" + f));
}

inline void write_openai_gpt2(GPT& model, const std::string& dir,
                              const std::string& vocab_dir = "") {
  write_openai_folder(dir, openai_hparams(model.config()), openai_variables(model), vocab_dir);
}

}  // namespace tinylm::testing
