// One GGUF language model, whichever family: llama.cpp's gpt2 (model/gguf_gpt2.h), or
// its llama, qwen2 and qwen3 (model/gguf_llama.h), by the model's arch on writing and
// general.architecture on reading.
#pragma once
#include <memory>
#include <string>

#include "io/gguf.h"
#include "model/gpt.h"

namespace tinylm {

Gguf model_to_gguf(GPT& model, GgmlType type, const std::string& name);
std::unique_ptr<GPT> model_from_gguf(const Gguf& gguf);
GPTConfig gguf_model_config(const Gguf& gguf);

}  // namespace tinylm
