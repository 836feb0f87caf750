#include "model/hf_lm.h"

#include <nlohmann/json.hpp>

#include "model/hf_gpt2.h"
#include "model/hf_llama.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

bool is_hf_llama_dir(const std::string& dir) {
  const std::string config = dir + "/config.json";
  if (!file_exists(config)) return false;
  const bool weights =
      file_exists(dir + "/model.safetensors") || file_exists(dir + "/model.safetensors.index.json");
  return weights && is_llama_family_config(read_json_file(config));
}

std::unique_ptr<GPT> load_hf_lm(const std::string& dir) {
  return is_hf_llama_dir(dir) ? load_hf_llama(dir) : load_hf_gpt2(dir);
}

void save_hf_lm(GPT& model, const std::string& dir, int32_t eot) {
  if (model.config().arch == Arch::Llama) return save_hf_llama(model, dir, eot);
  save_hf_gpt2(model, dir, eot);
}

}  // namespace tinylm
