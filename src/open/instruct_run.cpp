#include "open/instruct_run.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "run/checkpoint.h"
#include "run/finetune_run_folder.h"
#include "run/lm_trainable.h"
#include "tokenizer/load.h"
#include "util/error.h"

namespace tinylm {

InstructRun load_instruct_run(const std::string& dir, const std::string& verb) {
  require_finetune_run(dir, "instruct", verb);
  const std::string path = checkpoint_path(dir);
  const CheckpointState state = read_checkpoint_state(path);
  return naming_checkpoint(path, [&] { return read_instruct_run(state, path); });
}

InstructRun read_instruct_run(const CheckpointState& state, const std::string& path) {
  InstructRun run;
  run.config = FinetuneConfig::from_saved(state.config, path);
  require(state.config.contains("run") && state.config["run"].contains("model"),
          path + ": no model config in the checkpoint");
  run.model =
      std::make_unique<GPT>(GPTConfig::from_json(state.config["run"]["model"], "run.model."));
  Rng rng(run.config.finetune.seed + 3);  // A's start values, replaced by the checkpoint's
  Trainables trained = set_lm_trainable(*run.model, run.config, rng);
  run.lora = std::move(trained.lora);
  load_checkpoint(path, trained.params, nullptr);
  run.tokenizer = tokenizer_from_json(state.tokenizer);
  run.step = state.step;
  return run;
}

InstructionCollateOptions collate_options(const FinetuneSettings& f, const Tokenizer& tokenizer,
                                          int64_t block_size) {
  InstructionCollateOptions o;
  o.pad_id = tokenizer.eot_id();
  require(o.pad_id >= 0, "instruction fine-tuning needs a tokenizer with <|endoftext|> (" +
                             tokenizer.kind() + " has none)");
  o.mask_prompt = f.mask_prompt;
  o.allowed_max_length =
      f.allowed_max_length > 0 ? std::min(f.allowed_max_length, block_size) : block_size;
  return o;
}

std::optional<double> supervised_instruction_loss(GPT& model, const InstructionSet& set,
                                                  const InstructionCollateOptions& collate,
                                                  int64_t batch_size, int64_t max_batches) {
  const int64_t n = set.size();
  const int64_t batches = (n + batch_size - 1) / batch_size;
  const int64_t used = max_batches > 0 ? std::min(batches, max_batches) : batches;
  double total = 0;
  int64_t counted = 0;  // batches with a supervised target: a mean over the others is 0
  for (int64_t b = 0; b < used; ++b) {
    std::vector<int64_t> idx(std::min(batch_size, n - b * batch_size));
    std::iota(idx.begin(), idx.end(), b * batch_size);
    const Batch batch = collate_instructions(set.encoded, idx, collate);
    if (batch.supervised() == 0) continue;
    total += model.forward_loss(batch.inputs.data(), batch.targets.data(), batch.B, batch.T);
    ++counted;
  }
  if (counted == 0) return std::nullopt;
  return total / static_cast<double>(counted);
}

double instruction_loss(GPT& model, const InstructionSet& set,
                        const InstructionCollateOptions& collate, int64_t batch_size,
                        int64_t max_batches) {
  return supervised_instruction_loss(model, set, collate, batch_size, max_batches)
      .value_or(std::numeric_limits<double>::quiet_NaN());
}

bool has_supervised_target(const InstructionSet& set, const InstructionCollateOptions& collate) {
  for (int64_t i = 0; i < set.size(); ++i) {
    const int64_t one[] = {i};
    if (collate_instructions(set.encoded, one, collate).supervised() > 0) return true;
  }
  return false;
}

}  // namespace tinylm
