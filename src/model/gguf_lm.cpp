#include "model/gguf_lm.h"

#include "model/gguf_gpt2.h"
#include "model/gguf_llama.h"

namespace tinylm {

Gguf model_to_gguf(GPT& model, GgmlType type, const std::string& name) {
  if (model.config().arch == Arch::Llama) return llama_to_gguf(model, type, name);
  return gpt_to_gguf(model, type, name);
}

std::unique_ptr<GPT> model_from_gguf(const Gguf& gguf) {
  return is_llama_family_gguf(gguf) ? llama_from_gguf(gguf) : gpt_from_gguf(gguf);
}

GPTConfig gguf_model_config(const Gguf& gguf) {
  return is_llama_family_gguf(gguf) ? gguf_llama_config(gguf) : gguf_gpt2_config(gguf);
}

}  // namespace tinylm
