#include "train/run_session.h"

#include <nlohmann/json.hpp>

#include "dist/communicator.h"
#include "run/checkpoint.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

RunSession::RunSession(RunFolderPlan folder, ParameterList params, const AdamWConfig& adamw,
                       uint64_t seed)
    : batch_rng(seed + 1),
      dropout_rng(seed + 2),
      folder_(std::move(folder)),
      params_(std::move(params)),
      block_(params_),
      optimizer_(params_, adamw) {
  if (!resumed()) return;
  const CheckpointState s = load_checkpoint(folder_.resume_from, params_, &optimizer_);
  step = s.step;
  batch_rng.set_state(s.batch_rng);
  dropout_rng.set_state(s.dropout_rng);
  best_val_loss = s.best_val_loss;
  last_val_loss = s.val_loss;
}

void RunSession::begin(const nlohmann::json& config, const Tokenizer& tokenizer) {
  dist::world().barrier();  // every rank has checked the folder before rank 0 writes to it
  config_ = config;
  if (!writes()) return;
  if (!folder_.lock) folder_.lock = std::make_unique<RunFolderLock>(dir());  // creates it
  tokenizer_ = tokenizer.to_json();
  write_file_atomic(dir() + "/config.json", config_.dump(2) + "\n");
  write_file_atomic(dir() + "/tokenizer.json", tokenizer_.dump() + "\n");
  log_.emplace(dir() + "/log.jsonl", resumed() ? step : -1);
}

bool RunSession::save(const std::string& path) {
  non_finite_ = first_non_finite(params_, optimizer_);
  if (!non_finite_.empty()) return false;
  if (!writes()) return true;
  CheckpointState s;
  s.step = step;
  s.config = config_;
  s.tokenizer = tokenizer_;
  s.batch_rng = batch_rng.state();
  s.dropout_rng = dropout_rng.state();
  s.best_val_loss = best_val_loss;
  s.val_loss = last_val_loss;
  s.world_size = dist::world().size();
  save_checkpoint(path, params_, &optimizer_, s);
  return true;
}

std::string RunSession::what_is_saved() const {
  const SavedCheckpoints now = find_checkpoints(dir());
  return now.newest().empty() ? std::string("No checkpoint was written.")
                              : "The last good checkpoint is " + now.newest() + " (" +
                                    now.describe() + "); continue with --resume.";
}

bool RunSession::writes() const {
  return dist::world().rank() == 0;
}

void RunSession::zero_grad() {
  block_.zero_grads();
}

}  // namespace tinylm
