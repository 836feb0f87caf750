// The settings train and finetune share (see shared_settings.h).
#include "run/shared_settings.h"

#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "run/count_limits.h"
#include "util/error.h"
#include "util/float_text.h"

namespace tinylm {

const SettingField<OptimizerSettings> kOptimizerFields[8] = {
    {"lr", &OptimizerSettings::lr},
    {"min_lr", &OptimizerSettings::min_lr},
    {"warmup_steps", &OptimizerSettings::warmup_steps},
    {"beta1", &OptimizerSettings::beta1},
    {"beta2", &OptimizerSettings::beta2},
    {"eps", &OptimizerSettings::eps},
    {"weight_decay", &OptimizerSettings::weight_decay},
    {"grad_clip", &OptimizerSettings::grad_clip},
};

const SettingField<LoopCounts> kLoopFields[7] = {
    {"batch_size", &LoopCounts::batch_size},
    {"max_steps", &LoopCounts::max_steps},
    {"eval_interval", &LoopCounts::eval_interval},
    {"log_interval", &LoopCounts::log_interval},
    {"checkpoint_interval", &LoopCounts::checkpoint_interval},
    {"seed", &LoopCounts::seed},
    {"threads", &LoopCounts::threads},
};

void check_optimizer(const OptimizerSettings& o, const SectionRules& rules) {
  const std::string& s = rules.name;
  for (const auto& [field, v] : {std::pair<const char*, double>{"lr", o.lr},
                                 {"min_lr", o.min_lr},
                                 {"eps", o.eps},
                                 {"weight_decay", o.weight_decay},
                                 {"grad_clip", o.grad_clip}})
    require_float_range(s + "." + field, v);
  require(o.lr > 0, s + ".lr must be positive");
  // A floor above lr would make the cosine "decay" climb.
  require((rules.constant_lr && o.min_lr < 0) || (o.min_lr >= 0 && o.min_lr <= o.lr),
          s + ".min_lr must be in [0, " + s + ".lr]" +
              (rules.constant_lr ? " (or negative: a constant lr)" : ""));
  require(o.warmup_steps >= 0, s + ".warmup_steps must be >= 0");
  require_at_most(s + ".warmup_steps", o.warmup_steps, kMaxStepCount);
  require(o.beta1 >= 0 && o.beta1 < 1, s + ".beta1 must be in [0, 1)");
  require(o.beta2 >= 0 && o.beta2 < 1, s + ".beta2 must be in [0, 1)");
  require(o.eps > 0, s + ".eps must be positive");
  require(o.eps >= 1e-30, s + ".eps must be at least 1e-30");
  require(o.weight_decay >= 0, s + ".weight_decay must be >= 0");
  require(o.grad_clip >= 0, s + ".grad_clip must be >= 0 (0: no clipping)");
}

void check_loop(const LoopCounts& l, const SectionRules& rules) {
  const std::string& s = rules.name;
  require(l.batch_size >= 1, s + ".batch_size must be at least 1");
  require(l.max_steps >= 1 || (rules.max_steps_capped && l.max_steps == -1),
          s + ".max_steps must be at least 1" + (rules.max_steps_capped ? " (or -1)" : ""));
  require(l.eval_interval >= 1, s + ".eval_interval must be at least 1");
  require(l.log_interval >= 1, s + ".log_interval must be at least 1");
  require(l.checkpoint_interval >= 1, s + ".checkpoint_interval must be at least 1");
  require(l.threads >= 0, s + ".threads must be >= 0 (0: all cores)");
  for (const auto& [field, v, limit] :
       {std::tuple<const char*, int64_t, int64_t>{"max_steps", l.max_steps, kMaxStepCount},
        {"eval_interval", l.eval_interval, kMaxStepCount},
        {"log_interval", l.log_interval, kMaxStepCount},
        {"checkpoint_interval", l.checkpoint_interval, kMaxStepCount},
        {"batch_size", l.batch_size, kMaxBatchSize},
        {"threads", l.threads, kMaxThreads}})
    require_at_most(s + "." + field, v, limit);
}

AdamWConfig adamw_config(const OptimizerSettings& o) {
  return {static_cast<float>(o.lr), static_cast<float>(o.beta1), static_cast<float>(o.beta2),
          static_cast<float>(o.eps), static_cast<float>(o.weight_decay)};
}

LrSchedule lr_schedule(const OptimizerSettings& o, int64_t decay_steps) {
  if (o.min_lr < 0) return {o.lr, o.lr, o.warmup_steps, 0};
  return {o.lr, o.min_lr, o.warmup_steps, decay_steps};
}

LoraConfig default_lora() {
  LoraConfig lora;
  lora.r = 16;
  lora.alpha = 16.0f;
  lora.targets = {kAllLinear};  // every linear layer of the blocks, in either family
  return lora;
}

LoraConfig read_lora(const nlohmann::json& section) {
  LoraConfig lora = default_lora();
  double alpha = lora.alpha, dropout = lora.dropout;
  SectionReader(section, "lora")
      .integer("r", lora.r)
      .number("alpha", alpha)
      .string_list("targets", lora.targets)
      .number("dropout", dropout)
      .done();
  require_float_range("lora.alpha", alpha);
  lora.alpha = static_cast<float>(alpha);
  lora.dropout = static_cast<float>(dropout);
  return lora;
}

nlohmann::json lora_json(const LoraConfig& lora) {
  return {{"r", lora.r},
          {"alpha", shortest_decimal(lora.alpha)},
          {"targets", lora.targets},
          {"dropout", shortest_decimal(lora.dropout)}};
}

}  // namespace tinylm
