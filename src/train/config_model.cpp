#include "train/config_model.h"

#include <nlohmann/json.hpp>

#include "report/model_info.h"
#include "run/train_config.h"
#include "train/training_data.h"

namespace tinylm {

ConfigModel training_config_model(const nlohmann::json& j, const std::string& what) {
  const bool needs_vocab = j.is_object() && j.contains("model") && j["model"].is_object() &&
                           !j["model"].contains("vocab_size") && !j["model"].contains("preset");
  ConfigModel out;
  if (!needs_vocab || !j.contains("data")) {
    out.model = report::model_config_from_json(j, what);
    return out;
  }
  const TrainingData data(TrainConfig::from_json(j), nullptr);
  nlohmann::json resolved = j;
  resolved["model"]["vocab_size"] = data.tokenizer().vocab_size();
  out.model = report::model_config_from_json(resolved, what);
  out.vocab_from = data.tokenizer().kind();
  return out;
}

}  // namespace tinylm
