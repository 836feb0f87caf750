#include "train/run_model.h"

#include "tokenizer/load.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

LoadedRun load_run(const std::string& path) {
  std::string file = path;
  if (path.size() < 12 || path.compare(path.size() - 12, 12, ".safetensors") != 0) {
    file = file_exists(path + "/best.safetensors") ? path + "/best.safetensors"
                                                   : path + "/last.safetensors";
    require(file_exists(file), path + ": no checkpoint (best.safetensors or last.safetensors)");
  }
  LoadedRun run;
  const CheckpointState state = read_checkpoint_state(file);
  run.config = TrainConfig::from_json(state.config);
  run.model = std::make_unique<GPT>(run.config.model);
  load_checkpoint(file, *run.model, nullptr);
  run.tokenizer = tokenizer_from_json(state.tokenizer);
  run.step = state.step;
  run.checkpoint = file;
  return run;
}

}  // namespace tinylm
