// `tinylm info`: a model's parameter table, FLOP estimate and memory budget for a batch
// shape, as text (aligned tables) or JSON. Everything is computed from the GPTConfig.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "model/config.h"
#include "report/flops.h"
#include "report/memory.h"
#include "report/param_table.h"

namespace tinylm::report {

struct ModelInfo {
  GPTConfig config;
  ParamTable params;
  FlopEstimate flops;
  MemoryEstimate memory;  // a training step (dropout buffers when dropout > 0)
};

// Throws InputError for an invalid config or batch shape.
ModelInfo model_info(const GPTConfig& c, int64_t batch, int64_t seq);

std::string render_text(const ModelInfo& info);
nlohmann::json to_json(const ModelInfo& info);

// The model config in a JSON file: a training config with the model under "model", or
// a bare model object. Throws InputError naming the file and the bad field.
GPTConfig load_model_config(const std::string& path);
// The same from parsed JSON; `what` names its source in errors.
GPTConfig model_config_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace tinylm::report
