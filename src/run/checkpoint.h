// Training checkpoints: one safetensors file holding everything needed to continue a
// run exactly where it stopped.
//   tensors   "model.<param>"     the weights (tinylm layout, float32)
//             "optim.m.<param>"   AdamW first moments
//             "optim.v.<param>"   AdamW second moments
//   metadata  "tinylm.format" "1", "tinylm.step" (optimizer steps done),
//             "tinylm.config" (the TrainConfig JSON), "tinylm.tokenizer" (its JSON),
//             "tinylm.rng.batches" / "tinylm.rng.dropout" (generator states),
//             "tinylm.best_val_loss", "tinylm.val_loss", "tinylm.world_size" (the ranks
//             that trained it: recorded, not required; a run resumes on any number)
// Files are written to a temporary name and renamed, so a crash never leaves a torn one.
#pragma once
#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "io/safetensors.h"
#include "model/gpt.h"
#include "optim/adamw.h"
#include "util/rng.h"

namespace tinylm {

struct CheckpointState {
  int64_t step = 0;
  nlohmann::json config;     // TrainConfig::to_json()
  nlohmann::json tokenizer;  // Tokenizer::to_json()
  std::array<uint64_t, 4> batch_rng{}, dropout_rng{};
  double best_val_loss = 1e30;
  double val_loss = 1e30;
  int64_t world_size = 1;  // data-parallel ranks that wrote it (older files: 1)
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
// The same from a file already read (path names it in messages).
CheckpointState checkpoint_state(const SafeTensors& file, const std::string& path);
CheckpointState load_checkpoint(const SafeTensors& file, const std::string& path, GPT& model,
                                AdamW* optimizer);
CheckpointState load_checkpoint(const SafeTensors& file, const std::string& path,
                                const ParameterList& params, AdamW* optimizer);

// The checkpoints a run folder holds, for resuming and for messages.
struct SavedCheckpoints {
  std::string last, best;                  // paths of the files present ("" when absent)
  int64_t last_step = -1, best_step = -1;  // -1: absent or unreadable
  std::string last_error, best_error;      // why a present file cannot be read
  bool any() const { return !last.empty() || !best.empty(); }
  // The readable checkpoint with the most steps (last.safetensors on a tie), or "".
  std::string newest() const;
  // "last.safetensors (step 500) and best.safetensors (step 750)", "no checkpoint", ...
  std::string describe() const;
};
SavedCheckpoints find_checkpoints(const std::string& dir);

// The name of the first weight or AdamW moment that is NaN or infinite, or "" when all
// are finite. save_checkpoint refuses to write such a model.
std::string first_non_finite(GPT& model, AdamW& optimizer);
std::string first_non_finite(const ParameterList& params, AdamW& optimizer);

}  // namespace tinylm
