// A `tinylm train` run planned before step 1, with nothing written: the folder checked
// (run_folder.h), the config resolved (the saved run's or the base's shape, the
// vocabulary from the data, the steps from data.epochs), the data loaded, the sample
// prompt and the memory of a step checked, train.init_from's base opened.
#pragma once
#include <cstdint>
#include <memory>

#include "model/gpt.h"
#include "run/run_folder.h"
#include "run/train_config.h"
#include "train/trainer.h"
#include "train/training_data.h"

namespace tinylm {

struct LmRunPlan {
  TrainConfig config;  // resolved: vocab_size, shape, max_steps
  RunFolderPlan folder;
  std::unique_ptr<TrainingData> data;
  std::unique_ptr<GPT> base;  // train.init_from of a new run: the weights to start from
};

// InputError for anything wrong with the config, the data, the base or the folder.
LmRunPlan plan_lm_run(const TrainConfig& config, const TrainOptions& options);

}  // namespace tinylm
