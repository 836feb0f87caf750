// Training checkpoints: one safetensors file holding everything needed to continue a
// run exactly where it stopped.
//   tensors   "model.<param>"     the weights (tinylm layout, float32)
//             "optim.m.<param>"   AdamW first moments
//             "optim.v.<param>"   AdamW second moments
//   metadata  "tinylm.format" "1", "tinylm.step" (optimizer steps done),
//             "tinylm.config" (the TrainConfig JSON), "tinylm.tokenizer" (its JSON),
//             "tinylm.rng.batches" / "tinylm.rng.dropout" (generator states),
//             "tinylm.best_val_loss", "tinylm.val_loss"
// Files are written to a temporary name and renamed, so a crash never leaves a torn one.
#pragma once
#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "model/gpt.h"
#include "train/adamw.h"
#include "util/rng.h"

namespace tinylm {

struct CheckpointState {
  int64_t step = 0;
  nlohmann::json config;     // TrainConfig::to_json()
  nlohmann::json tokenizer;  // Tokenizer::to_json()
  std::array<uint64_t, 4> batch_rng{}, dropout_rng{};
  double best_val_loss = 1e30;
  double val_loss = 1e30;
};

void save_checkpoint(const std::string& path, GPT& model, AdamW* optimizer,
                     const CheckpointState& state);
// The same for any named parameters (a classifier's body, head and adapters).
void save_checkpoint(const std::string& path, const ParameterList& params, AdamW* optimizer,
                     const CheckpointState& state);

// Reads the state and the config (to build the model) without loading weights.
CheckpointState read_checkpoint_state(const std::string& path);

// Loads weights into `model` (and moments into `optimizer` if given). The model must
// have the checkpoint's shapes: a mismatch names the tensor and both shapes.
CheckpointState load_checkpoint(const std::string& path, GPT& model, AdamW* optimizer);
CheckpointState load_checkpoint(const std::string& path, const ParameterList& params,
                                AdamW* optimizer);

}  // namespace tinylm
