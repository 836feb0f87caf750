#include "train/lm_plan.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "open/base_model.h"
#include "report/memory.h"
#include "run/checkpoint.h"
#include "run/count_limits.h"
#include "tensor/threads.h"
#include "train/resume_check.h"
#include "util/error.h"
#include "util/system_memory.h"

namespace tinylm {

namespace {

// --resume: the saved run's shape and vocabulary, and what may change checked. Returns
// the checkpoint's tokenizer.
nlohmann::json resolve_from_checkpoint(TrainConfig& c, const std::string& checkpoint) {
  const CheckpointState state = read_checkpoint_state(checkpoint);
  TrainConfig saved;
  try {
    saved = TrainConfig::from_json(state.config);
  } catch (const InputError& e) {
    throw InputError(checkpoint + ": tinylm.config: " + e.what());
  }
  if (!c.train.init_from.empty())  // the shape the run started with, as for a new run
    c.model = config_from_base(c.model, saved.model, checkpoint);
  if (c.model.vocab_size == 0) c.model.vocab_size = saved.model.vocab_size;
  require(saved.model.to_json() == c.model.to_json(),
          checkpoint + " was trained with a different model config (" +
              saved.model.to_json().dump() + ")");
  check_resume_settings(saved, c, state.step, checkpoint);
  return state.tokenizer;
}

void resolve_vocabulary(TrainConfig& c, const TrainingData& data) {
  const int64_t vocab = data.tokenizer().vocab_size();
  if (c.model.vocab_size == 0) c.model.vocab_size = vocab;
  if (c.train.init_from.empty())
    require(c.model.vocab_size == vocab,
            "model.vocab_size is " + std::to_string(c.model.vocab_size) +
                " but the tokenizer has " + std::to_string(vocab) +
                " tokens (leave vocab_size out to take it from the data)");
  else  // a base may have more embeddings than ids (GPT-2 padded to 50304, as nanoGPT)
    require(vocab <= c.model.vocab_size, "train.init_from (" + c.train.init_from + ") has " +
                                             std::to_string(c.model.vocab_size) +
                                             " token embeddings but its tokenizer " +
                                             std::to_string(vocab) + " ids");
}

// What the run needs later is checked now: the sample prompt (used at every evaluation)
// and the memory of a training step.
void check_before_step_one(const TrainConfig& c, const TrainingData& data) {
  if (data.is_addition())
    require(c.model.block_size >= 12, "model.block_size must be at least 12 for the addition task");
  if (!data.is_addition() && c.sample.max_new_tokens > 0) {
    try {
      data.tokenizer().encode(c.sample.prompt);
    } catch (const InputError& e) {
      throw InputError(std::string("sample.prompt: ") + e.what());
    }
  }
  const int64_t train_T =  // the addition task trains on fixed-length problems
      data.is_addition() ? std::min<int64_t>(c.model.block_size, kAdditionBlockSize)
                         : c.model.block_size;
  require_fits_in_memory(
      report::estimate_memory(c.model, c.train.batch_size, train_T).training_peak(),
      "training this model (batch_size " + std::to_string(c.train.batch_size) + ", block_size " +
          std::to_string(c.model.block_size) + ")");
}

}  // namespace

LmRunPlan plan_lm_run(const TrainConfig& config, const TrainOptions& options) {
  LmRunPlan plan;
  TrainConfig& c = plan.config;
  c = config;
  c.validate();
  require(!options.out_dir.empty(), "--out: empty folder name");
  plan.folder = plan_run_folder(options.out_dir, "train", options.resume);
  nlohmann::json tokenizer;
  if (options.resume) tokenizer = resolve_from_checkpoint(c, plan.folder.resume_from);
  set_num_threads(static_cast<int>(c.train.threads));
  if (!c.train.init_from.empty() && !options.resume) {
    // The weights are copied once, into the run's model (config_from_base sets the dropout).
    BaseModel base = load_base_model(c.train.init_from, nlohmann::json::object(), -1.0,
                                     c.train.seed, "train.init_from");
    c.model = config_from_base(c.model, base.model->config(),
                               "train.init_from (" + c.train.init_from + ")");
    tokenizer = base.tokenizer->to_json();
    plan.base = std::move(base.model);
  }
  plan.data = std::make_unique<TrainingData>(c, tokenizer.is_null() ? nullptr : &tokenizer);
  resolve_vocabulary(c, *plan.data);
  c.model.validate();
  if (c.data.epochs > 0) {
    c.train.max_steps = plan.data->steps_for_epochs(c.data.epochs, c.train.grad_accum);
    require_at_most("the steps of data.epochs = " + std::to_string(c.data.epochs),
                    c.train.max_steps, kMaxStepCount);
  }
  check_before_step_one(c, *plan.data);
  return plan;
}

}  // namespace tinylm
