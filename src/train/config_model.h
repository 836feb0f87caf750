// The model a training config describes, read from the config alone (nothing trained,
// nothing written): what `tinylm info --config` shows. The config may leave
// model.vocab_size out; a run then takes it from the data's tokenizer, and so does this,
// through the same TrainingData (train/training_data.h) that the run loads: the
// corpus is read and tokenised, so the two cannot disagree. A bare model object
// ({"n_layer": ...} without "model") is read as it is.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/config.h"

namespace tinylm {

struct ConfigModel {
  GPTConfig model;         // validated
  std::string vocab_from;  // the data's tokenizer ("char", "gpt2" ...) when vocab_size came
                           // from the data; "" when the config gives it (or a preset)
};

// j: the config file's JSON; what: its name for messages. InputError naming the field,
// or the data's problem, when the model cannot be resolved.
ConfigModel training_config_model(const nlohmann::json& j, const std::string& what);

}  // namespace tinylm
