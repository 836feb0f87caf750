#include "finetune/finetune_plan.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "backend/registry.h"
#include "dist/communicator.h"
#include "open/base_model.h"
#include "ops/matmul_bf16.h"
#include "report/memory.h"
#include "run/checkpoint.h"
#include "run/finetune_run_folder.h"
#include "run/trainable.h"
#include "tensor/threads.h"
#include "tokenizer/load.h"
#include "train/resume_check.h"
#include "util/error.h"
#include "util/json_read.h"
#include "util/system_memory.h"

namespace tinylm::finetune {

namespace {

// --resume: the checkpoint's settings against the given ones, then its model and
// tokenizer.
void plan_resume(FinetunePlan& plan) {
  const std::string& path = plan.folder.resume_from;
  const CheckpointState state = read_checkpoint_state(path);
  const FinetuneConfig saved =
      naming_checkpoint(path, [&] { return FinetuneConfig::from_saved(state.config, path); });
  FinetuneConfig& c = plan.config;
  if (c.base.empty()) c.base = saved.base;
  check_resume_settings(saved.to_json(), c.to_json(),
                        {"finetune.max_steps", "finetune.eval_interval", "finetune.log_interval",
                         "finetune.checkpoint_interval", "finetune.threads",
                         "finetune.max_new_tokens", "finetune.write_responses"},
                        path);
  naming_checkpoint(path, [&] {
    const JsonField run(state.config, path, "tinylm.config");  // checked, named reads
    plan.model_config = GPTConfig::from_json(run["run"]["model"].raw(), "run.model.");
    plan.model_config.validate();
    plan.base_kind = run["run"]["base_kind"].string();
    plan.tokenizer = tokenizer_from_json(state.tokenizer);
    return 0;
  });
}

}  // namespace

void require_step_fits(const GPTConfig& model, int64_t batch_size, int64_t T) {
  require_fits_in_memory(report::estimate_memory(model, batch_size, T).training_peak(),
                         "fine-tuning this model (finetune.batch_size " +
                             std::to_string(batch_size) + ", " + std::to_string(T) +
                             " tokens per example)");
}

void use_precision(const FinetuneOptions& options) {
  use_matmul_precision(options.device, options.precision);
  if (options.quiet || options.precision == ops::MatmulPrecision::kFp32) return;
  const std::string what =
      options.device == Device::kCpu ? ops::matmul_bf16_kernel() : device_name(options.device);
  std::printf("%s products: %s\n", ops::precision_name(options.precision), what.c_str());
}

FinetunePlan plan_finetune_run(const FinetuneConfig& config, const FinetuneOptions& options) {
  // Data parallel (docs/distributed.md): each rank takes an equal part of every batch.
  const int world = dist::world().size();
  require(config.finetune.batch_size % world == 0,
          "finetune.batch_size (" + std::to_string(config.finetune.batch_size) +
              ") must be a multiple of the " + std::to_string(world) +
              " ranks: each takes an equal part of every batch");
  FinetunePlan plan;
  FinetuneConfig& c = plan.config;
  c = config;
  c.validate();
  TrainableSet::parse(c.finetune.trainable);  // InputError if malformed
  if (options.device == Device::kCpu) use_matmul_precision(Device::kCpu, options.precision);
  plan.folder = plan_run_folder(options.out_dir, c.task, options.resume);
  if (options.resume) plan_resume(plan);
  require(!c.base.empty(), "--base: the model to start from is needed for a new run");
  set_num_threads(static_cast<int>(c.finetune.threads));
  if (!options.resume) {
    BaseModel base = load_base_model(c.base, c.model, c.finetune.dropout, c.finetune.seed);
    plan.model_config = base.model->config();
    plan.base = std::move(base.model);
    plan.tokenizer = std::move(base.tokenizer);
    plan.base_kind = base.kind;
  }
  return plan;
}

}  // namespace tinylm::finetune
