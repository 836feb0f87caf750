// Where a run's starting weights come from (see base_model.h).
#include "open/base_model.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "open/model_source.h"
#include "open/open_model.h"
#include "util/error.h"

namespace tinylm {

std::unique_ptr<GPT> with_dropout(std::unique_ptr<GPT> model, double dropout) {
  GPTConfig c = model->config();
  if (c.dropout == static_cast<float>(dropout) && c.attn_dropout < 0) return model;
  c.dropout = static_cast<float>(dropout);
  c.attn_dropout = -1.0f;
  auto copy = std::make_unique<GPT>(c);
  copy_base_weights(*model, *copy);
  return copy;
}

BaseModel load_base_model(const std::string& src, const nlohmann::json& model_overrides,
                          double dropout, uint64_t seed, const std::string& option) {
  ModelSourceInfo source = identify_model_source(src, option);
  const bool has_overrides = model_overrides.is_object() && !model_overrides.empty();
  require(!has_overrides || source.kind == ModelSourceKind::Preset,
          "the config's \"model\" section applies only to a preset base, not to " + src);
  const ModelSourceRow& row = model_source_row(source.kind);
  if (row.base == BaseUse::kRefused)
    throw InputError(
        option + " " + src + " is " + describe(source) +
        "; a base must be a language model: a Hugging Face folder "
        "(GPT2LMHeadModel or GPT2ForSequenceClassification for its body, LlamaForCausalLM, "
        "Qwen2ForCausalLM, Qwen3ForCausalLM), a tinylm train "
        "run or checkpoint, a GGUF file or a preset");
  // A classifier's body is read as the language model of its folder (its head is left).
  if (row.base == BaseUse::kBody) source.kind = ModelSourceKind::HfLanguageModel;
  OpenOptions options;
  options.option = option;
  options.preset_seed = seed;
  if (has_overrides) options.preset_fields = model_overrides;
  OpenedModel opened = open_model(source, options);
  BaseModel base;
  base.model = std::move(opened.lm);
  base.tokenizer = std::move(opened.tokenizer);
  base.kind = row.base_name;
  const int64_t vocab = base.model->config().vocab_size, ids = base.tokenizer->vocab_size();
  require(ids <= vocab, option + " " + src + ": the model has " + std::to_string(vocab) +
                            " token embeddings but its tokenizer (" + base.tokenizer->kind() +
                            ") has " + std::to_string(ids) + " ids");
  if (dropout >= 0) base.model = with_dropout(std::move(base.model), dropout);
  return base;
}

GPTConfig config_from_base(const GPTConfig& user, const GPTConfig& base, const std::string& what) {
  const nlohmann::json mine = user.to_json(), theirs = base.to_json(),
                       defaults = GPTConfig{}.to_json();
  for (const auto& [key, value] : mine.items()) {
    if (key == "dropout" || key == "attn_dropout" || key == "block_size") continue;
    if (value == defaults[key] || value == theirs[key]) continue;
    throw InputError("model." + key + " is " + value.dump() + " but " + what + " has " +
                     theirs[key].dump() +
                     " (with train.init_from the model's shape comes from there; \"model\" may "
                     "set only dropout, attn_dropout and a smaller block_size)");
  }
  require(user.block_size <= base.block_size,
          "model.block_size is " + std::to_string(user.block_size) + " but " + what +
              " has positions for only " + std::to_string(base.block_size));
  GPTConfig c = base;
  if (user.block_size > 0) c.block_size = user.block_size;
  c.dropout = user.dropout;
  c.attn_dropout = user.attn_dropout;
  return c;
}

void copy_base_weights(GPT& from, GPT& to) {
  ParameterList src = from.parameters(), dst = to.parameters();
  require(src.size() == dst.size(), "copy_base_weights: the models have different parameters");
  for (size_t i = 0; i < src.size(); ++i) {
    const Tensor& a = src[i].param->value;
    Tensor& b = dst[i].param->value;
    if (src[i].name == "wpe.weight" && a.numel() > b.numel()) {  // [T_base, C] -> first T rows
      std::copy(a.data(), a.data() + b.numel(), b.data());
      continue;
    }
    b.copy_from(a);
  }
}

}  // namespace tinylm
