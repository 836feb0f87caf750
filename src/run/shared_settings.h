// The settings `tinylm train` (its "train" section) and `tinylm finetune` (its "finetune"
// section) share, spelled once: their JSON names (one field table each), reading, writing
// and checks, and what the optimizer makes of them; and the "lora" section of both. Each
// section keeps its own defaults (train_config.h: nanoGPT's; finetune_config.h: the
// course's) and adds its own fields.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "lora/lora.h"
#include "optim/adamw.h"
#include "optim/schedule.h"
#include "run/section_reader.h"

namespace tinylm {

// AdamW and the learning-rate schedule.
struct OptimizerSettings {
  double lr = 0;
  double min_lr = 0;  // cosine decay from lr to min_lr (after warmup); < 0: a constant lr
                      // (fine-tuning only)
  int64_t warmup_steps = 0;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0;
  double grad_clip = 0;  // 0: no clipping
};

// The loop's counts and intervals, its seed and threads.
struct LoopCounts {
  int64_t batch_size = 0;
  int64_t max_steps = 0;  // train: the steps; finetune: -1, or a cap on the epochs' steps
  int64_t eval_interval = 0;
  int64_t log_interval = 0;
  int64_t checkpoint_interval = 0;
  uint64_t seed = 0;
  int64_t threads = 0;  // 0: all cores
};

extern const SettingField<OptimizerSettings> kOptimizerFields[8];
extern const SettingField<LoopCounts> kLoopFields[7];

// What a section allows beyond the shared rules.
struct SectionRules {
  std::string name;               // "train", "finetune": names the fields in messages
  bool constant_lr = false;       // min_lr < 0 means a constant lr
  bool max_steps_capped = false;  // max_steps -1: no cap (the epochs decide)
};

// InputError naming the field ("train.lr must be positive") for a value out of its range,
// of a 32-bit float's range, or above the counts a run can hold (run/count_limits.h).
void check_optimizer(const OptimizerSettings& o, const SectionRules& rules);
void check_loop(const LoopCounts& l, const SectionRules& rules);

// The AdamW of these settings (at lr; the loop sets each step's from the schedule).
AdamWConfig adamw_config(const OptimizerSettings& o);
// The schedule: warmup, then cosine decay to min_lr at decay_steps; a constant lr after
// warmup when min_lr < 0.
LrSchedule lr_schedule(const OptimizerSettings& o, int64_t decay_steps);

// The "lora" section over default_lora(): r, alpha, targets, dropout. InputError naming
// the field for an unknown one, a wrong type, a float out of float's range.
LoraConfig read_lora(const nlohmann::json& section);
nlohmann::json lora_json(const LoraConfig& lora);
// r 16, alpha 16 on c_attn, c_proj and c_fc (both verbs' defaults).
LoraConfig default_lora();

}  // namespace tinylm
