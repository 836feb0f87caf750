// The settings of a fine-tuning run (`tinylm finetune --task classify|instruct`): the
// JSON given with --config (optional), with --set overrides, saved as RUN/config.json.
//   {
//     "finetune": { optimiser, loop and task settings, below },
//     "lora":     { "r", "alpha", "targets", "dropout" }   (used with trainable "lora"; a
//                 "lora" section without finetune.trainable sets it to "lora")
//     "model":    { GPTConfig fields }  only with a preset base: the shape to initialise
//   }
// Defaults are the course's (Raschka ch. 6 and 7): AdamW lr 5e-5, weight decay 0.1 on
// every trainable tensor (one parameter group, as torch.optim.AdamW(model.parameters())),
// betas (0.9, 0.999), constant lr, no clipping, batch 8, dropout 0; 2 epochs for
// instruct, 5 for classify; train and val losses over the first 5 batches every 5
// (instruct) or 50 (classify) steps.
// Unknown or ill-typed fields are InputError naming the dotted field.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/dist_settings.h"
#include "run/shared_settings.h"

namespace tinylm {

// The "finetune" section: the shared optimizer and loop fields (run/shared_settings.h)
// with the course's defaults, and those of fine-tuning alone.
struct FinetuneSettings : OptimizerSettings, LoopCounts {
  FinetuneSettings()
      : OptimizerSettings{.lr = 5e-5,
                          .min_lr = -1,
                          .warmup_steps = 0,
                          .beta1 = 0.9,
                          .beta2 = 0.999,
                          .eps = 1e-8,
                          .weight_decay = 0.1,
                          .grad_clip = 0},
        LoopCounts{.batch_size = 8,
                   .max_steps = -1,
                   .eval_interval = 0,
                   .log_interval = 1,
                   .checkpoint_interval = 100,
                   .seed = 123,
                   .threads = 0} {}
  // min_lr < 0: constant lr; max_steps > 0: stop after this many optimizer steps (before
  // the epochs end); eval_interval is set from the task: classify 50, instruct 5.
  bool decay_all = true;     // false: decay matrices only (as `tinylm train`), not biases / norms
  int64_t epochs = 0;        // set from the task (instruct 2, classify 5)
  int64_t eval_batches = 5;  // batches of train and of val per evaluation (the course's eval_iter)
  double dropout = 0.0;      // replaces the base's dropout (the course fine-tunes with 0)
  // classify
  std::string trainable;  // set from the task: classify "last:1", instruct "all"
  std::string pooling = "last";
  int64_t max_length = 0;  // 0: pad to the longest training text
  bool balance = true;
  bool head_bias = false;  // the course's head has a bias; transformers' `score` has none
  std::string label_column, text_column, format, header = "auto";
  std::vector<std::string> labels;  // id -> name; empty: the file's labels, sorted
  double train_fraction = 0;        // set from the task: classify 0.7, instruct 0.85
  double val_fraction = 0.1;        // classify (test = the rest)
  double test_fraction = 0.1;       // instruct (val = the rest)
  // instruct
  bool mask_prompt = false;
  int64_t allowed_max_length = 1024;  // also capped by the model's context
  int64_t max_new_tokens = 256;       // greedy responses for the test split
  bool write_responses = true;        // RUN/test-responses.json after training
};

struct FinetuneConfig {
  std::string task;  // "classify" | "instruct"
  std::string base;  // what --base named
  std::string data;  // the data file
  FinetuneSettings finetune;
  LoraConfig lora = default_lora();                 // the adapters of trainable "lora"
  nlohmann::json model = nlohmann::json::object();  // preset overrides (may be empty)
  DistSettings dist;  // data parallelism under mpirun (docs/distributed.md)

  // The defaults of `task`, then the sections of j. InputError for an unknown task,
  // section or field, or an inconsistent value (naming it).
  static FinetuneConfig from_json(const nlohmann::json& j, const std::string& task);
  // Everything, including task, base and data (RUN/config.json and the checkpoints).
  nlohmann::json to_json() const;
  // Reads what to_json wrote (a run's config.json).
  static FinetuneConfig from_saved(const nlohmann::json& j, const std::string& what);
  void validate() const;

 private:
  void validate_task_fields() const;
};

}  // namespace tinylm
