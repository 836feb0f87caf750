// One run's folder and state, the same for every task (LM training, classification,
// instruction tuning):
//   the folder's lock, config.json (the config snapshot), tokenizer.json, log.jsonl,
//   the parameters (views into one block: tensor/parameter_block.h) and AdamW, the batch
//   and dropout generators, the step, the best and last validation losses, and
//   checkpoints with the non-finite guard.
// Nothing is written until begin(): every check on the input comes first.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "optim/adamw.h"
#include "run/run_folder.h"
#include "tensor/parameter.h"
#include "tensor/parameter_block.h"
#include "tokenizer/tokenizer.h"
#include "train/run_log.h"
#include "util/rng.h"

namespace tinylm {

class RunSession {
 public:
  // A new run (generators from `seed`: batches seed + 1, dropout seed + 2), or with
  // folder.resume_from set, the weights, moments, generators, step and losses of that
  // checkpoint loaded into `params` and the optimizer. Writes nothing.
  RunSession(RunFolderPlan folder, ParameterList params, const AdamWConfig& adamw, uint64_t seed);

  // The first writes (rank 0's; every rank waits here until all have read the folder):
  // locks the folder (creating it and its marker), writes config.json
  // (`config`, also saved in every checkpoint) and tokenizer.json, opens log.jsonl.
  void begin(const nlohmann::json& config, const Tokenizer& tokenizer);

  // Writes a checkpoint (rank 0; the other ranks only check); false (nothing written, non_finite()
  // names what) when a weight or an AdamW moment is NaN or infinite.
  bool save(const std::string& path);
  // "The last good checkpoint is ... ; continue with --resume." or "No checkpoint ...".
  std::string what_is_saved() const;
  const std::string& non_finite() const { return non_finite_; }

  bool resumed() const { return !folder_.resume_from.empty(); }
  const std::string& dir() const { return folder_.dir; }
  std::string last_path() const { return folder_.dir + "/last.safetensors"; }
  std::string best_path() const { return folder_.dir + "/best.safetensors"; }
  const ParameterList& params() const { return params_; }
  AdamW& optimizer() { return optimizer_; }
  RunLog& log() { return *log_; }
  void zero_grad();     // of the trainable parameters: one fill of the block
  bool writes() const;  // rank 0 of a data-parallel run (or the only process)

  int64_t step = 0;  // optimizer steps done
  Rng batch_rng, dropout_rng;
  double best_val_loss = 1e30, last_val_loss = 1e30;

 private:
  RunFolderPlan folder_;
  ParameterList params_;
  ParameterBlock block_;  // before optimizer_: its spans point into the block
  AdamW optimizer_;
  nlohmann::json config_, tokenizer_;
  std::optional<RunLog> log_;
  std::string non_finite_;
};

}  // namespace tinylm
