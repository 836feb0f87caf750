// Base + PEFT adapter -> merged Hugging Face folder (see merge.h).
#include "finetune/merge.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "finetune/hf_classifier.h"
#include "lora/peft.h"
#include "model/hf_gpt2.h"
#include "train/run_model.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::finetune {

namespace fs = std::filesystem;

namespace {

bool is_classifier_folder(const std::string& dir) {
  if (!is_hf_model_dir(dir)) return false;
  try {
    const auto config = read_json_file(dir + "/config.json");
    return config.contains("architectures") && config["architectures"].is_array() &&
           !config["architectures"].empty() &&
           config["architectures"][0] == "GPT2ForSequenceClassification";
  } catch (const nlohmann::json::exception& e) {
    throw InputError(dir + "/config.json: " + e.what());
  }
}

std::unique_ptr<GPT> load_base(const std::string& base) {
  if (is_hf_model_dir(base)) return load_hf_gpt2(base);
  if (fs::exists(base)) return load_run(base).model;
  auto model =
      std::make_unique<GPT>(GPTConfig::preset(base));  // InputError naming an unknown preset
  Rng rng(1337);
  model->init(rng);
  return model;
}

}  // namespace

MergeSummary merge_adapter(const std::string& base, const std::string& adapter,
                           const std::string& out) {
  require(!out.empty(), "--out: empty path");
  if (fs::exists(out))
    require(fs::is_directory(out) && fs::is_empty(out),
            out + ": already exists and is not an empty folder (refusing to overwrite it)");
  MergeSummary summary;
  const fs::path target(out);
  const fs::path tmp = target.parent_path() / (target.filename().string() + ".tmp-merge");
  fs::remove_all(tmp);
  if (is_classifier_folder(base)) {
    summary.classifier = true;
    auto model = load_hf_classifier(base);
    auto lora = load_peft_adapter(model->body(), &model->score, adapter);
    summary.modules = static_cast<int64_t>(lora->attached().size());
    summary.lora_parameters = lora->num_parameters();
    lora->merge();
    lora.reset();
    save_hf_classifier(*model, tmp.string());
  } else {
    auto model = load_base(base);
    auto lora = load_peft_adapter(*model, nullptr, adapter);
    summary.modules = static_cast<int64_t>(lora->attached().size());
    summary.lora_parameters = lora->num_parameters();
    lora->merge();
    lora.reset();
    save_hf_gpt2(*model, tmp.string());
  }
  if (fs::exists(target)) fs::remove(target);  // an empty folder (checked above)
  fs::rename(tmp, target);
  return summary;
}

}  // namespace tinylm::finetune
