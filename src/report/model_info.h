// `tinylm info`: a model's parameter table, FLOP estimate and memory budget for a batch
// shape, as text (aligned tables) or JSON. Everything is computed from the GPTConfig.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
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
  bool has_lora = false;  // a LoRA run: the model's weights frozen, the adapters train
  LoraAdapters lora;
};

// Throws InputError for an invalid config or batch shape. lora: the adapters of a LoRA
// run (memory.h), or null when every parameter trains.
ModelInfo model_info(const GPTConfig& c, int64_t batch, int64_t seq,
                     const LoraAdapters* lora = nullptr);

std::string render_text(const ModelInfo& info);
nlohmann::json to_json(const ModelInfo& info);

// The model config in a JSON file: a training config with the model under "model", or
// a bare model object. Throws InputError naming the file and the bad field.
GPTConfig load_model_config(const std::string& path);
// The same from parsed JSON; `what` names its source in errors.
GPTConfig model_config_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace tinylm::report
