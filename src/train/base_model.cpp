// Where a run's starting weights come from (see base_model.h).
#include "train/base_model.h"

#include <filesystem>

#include "model/hf_gpt2.h"
#include "tokenizer/bpe_tokenizer.h"
#include "train/run_model.h"
#include "util/error.h"
#include "util/files.h"
#include "util/rng.h"

namespace tinylm {

std::unique_ptr<GPT> with_dropout(std::unique_ptr<GPT> model, double dropout) {
  GPTConfig c = model->config();
  if (c.dropout == static_cast<float>(dropout) && c.attn_dropout < 0) return model;
  c.dropout = static_cast<float>(dropout);
  c.attn_dropout = -1.0f;
  auto copy = std::make_unique<GPT>(c);
  ParameterList from = model->parameters(), to = copy->parameters();
  for (size_t i = 0; i < from.size(); ++i) to[i].param->value.copy_from(from[i].param->value);
  return copy;
}

BaseModel load_base_model(const std::string& src, const nlohmann::json& model_overrides,
                          double dropout, uint64_t seed) {
  require(!src.empty(), "--base: no base model given");
  BaseModel base;
  const bool is_dir = std::filesystem::is_directory(src);
  const bool has_overrides = model_overrides.is_object() && !model_overrides.empty();
  if (is_dir && is_hf_model_dir(src)) {
    base.model = load_hf_gpt2(src);
    base.tokenizer = std::make_unique<BpeTokenizer>();
    base.kind = "hf";
  } else if ((is_dir &&
              (file_exists(src + "/last.safetensors") || file_exists(src + "/best.safetensors"))) ||
             (!is_dir && src.ends_with(".safetensors") && file_exists(src))) {
    LoadedRun run = load_run(src);
    base.model = std::move(run.model);
    base.tokenizer = std::move(run.tokenizer);
    base.kind = "run";
  } else if (is_dir || file_exists(src)) {
    throw InputError("--base " + src +
                     ": neither a Hugging Face GPT-2 folder (config.json + model.safetensors) "
                     "nor a tinylm run folder (last.safetensors)");
  } else {
    nlohmann::json shape = has_overrides ? model_overrides : nlohmann::json::object();
    shape["preset"] = src;  // InputError for an unknown name lists the presets
    GPTConfig c;
    try {
      c = GPTConfig::from_json(shape, "model.");
    } catch (const InputError& e) {
      throw InputError("--base " + src + ": not a folder, and " + e.what());
    }
    c.validate();
    base.model = std::make_unique<GPT>(c);
    Rng rng(seed);
    base.model->init(rng);
    base.tokenizer = std::make_unique<BpeTokenizer>();
    base.kind = "preset";
  }
  require(!has_overrides || base.kind == "preset",
          "the config's \"model\" section applies only to a preset base, not to " + src);
  const int64_t vocab = base.model->config().vocab_size, ids = base.tokenizer->vocab_size();
  require(ids <= vocab, "--base " + src + ": the model has " + std::to_string(vocab) +
                            " token embeddings but its tokenizer (" + base.tokenizer->kind() +
                            ") has " + std::to_string(ids) + " ids");
  base.model = with_dropout(std::move(base.model), dropout);
  return base;
}

}  // namespace tinylm
