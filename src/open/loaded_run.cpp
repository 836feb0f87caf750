#include "open/loaded_run.h"

#include "io/safetensors.h"
#include "lora/lora.h"
#include "model/weights_check.h"
#include "run/checkpoint.h"
#include "tokenizer/load.h"
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
  require(!is_directory(file), file + " is a folder, not a checkpoint file");
  LoadedRun run;
  const SafeTensors weights = load_safetensors(file);
  const CheckpointState state = checkpoint_state(weights, file);
  try {
    run.config = TrainConfig::from_json(state.config);
  } catch (const InputError& e) {
    throw InputError(file + ": tinylm.config: " + e.what());
  }
  // The sizes in the metadata are checked against the tensors before allocating.
  check_config_against_weights(run.config.model, weights, "model.", file);
  run.model = std::make_unique<GPT>(run.config.model);
  if (run.config.train.trainable == "lora") {
    // A LoRA run's checkpoint holds the frozen base and the adapters: fold them in, so
    // that sampling and evaluation run the plain model (W + s B A, as PEFT's merge).
    Rng unused(0);  // A's start values, replaced by the checkpoint's
    LoraSet lora(*run.model, nullptr, run.config.lora, unused);
    load_checkpoint(weights, file, with_adapters(*run.model, &lora), nullptr);
    lora.merge();
  } else {
    load_checkpoint(weights, file, *run.model, nullptr);
  }
  run.tokenizer = tokenizer_from_json(state.tokenizer);
  run.step = state.step;
  run.checkpoint = file;
  return run;
}

}  // namespace tinylm
