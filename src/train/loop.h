// The one training loop of every task (LM pre-training, classification, instruction
// tuning). The task says what a micro-batch and an evaluation are; the loop does the rest:
//   while step < total:
//     zero_grad; for micro in [0, micro_batches): loss += task.train_micro(...) / micros
//       (data parallel, docs/distributed.md: rank r of W trains the micro-batches
//       micro % W == r and skips the others; the gradients are summed over the ranks
//       (dist/gradient_sync.h) and the loss is their mean)
//     stop (exit 1) if the loss is not finite; clip; AdamW at schedule.at(step); ++step
//     every log_interval (and the last step): {"step", "loss", "lr", "grad_norm",
//       "tokens_per_s", + "mfu", "grad_norm_layers" when asked, + task.step_fields}
//     every eval_interval (and the last step): task.evaluate -> log line, progress line,
//       best.safetensors at a new lowest val loss (keep_best), task.after_eval
//     task.after_step (the end of an epoch)
//     every checkpoint_interval, the last step, on Ctrl-C, at stop_after: last.safetensors
// A checkpoint is never written with a NaN or infinite weight or moment: the run stops
// with exit 1 and the last good checkpoint stays. Only rank 0 logs, evaluates and writes;
// every rank starts from rank 0's parameters. Dropout draws are keyed by (step, micro),
// not by the rank that holds the micro-batch.
#pragma once
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "dist/gradient_sync.h"
#include "nn/context.h"
#include "optim/schedule.h"
#include "run/dist_settings.h"
#include "run/shared_settings.h"
#include "train/run_session.h"

namespace tinylm {

struct MicroStep {
  double loss = 0;     // the micro-batch's mean loss
  int64_t tokens = 0;  // positions processed (for tokens/s)
};

struct Evaluation {
  nlohmann::json fields;  // the log line's fields besides "step"
  std::string line;       // the progress line
  double val_loss = std::numeric_limits<double>::quiet_NaN();  // for keep_best
};

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;
  // Forward and backward of micro-batch `micro` of optimizer step `step` (0-based), the
  // gradients added scaled by `scale` (1 / micro-batches). Every micro-batch of a step
  // gets the same dropout generator; the task sets ctx.first_row and ctx.rows (the
  // micro-batch's sequences in the step's global batch), so masks follow the sequences.
  virtual MicroStep train_micro(int64_t step, int64_t micro, float scale,
                                const nn::Context& ctx) = 0;
  // What train_micro draws from the run's generators for micro-batch `micro`, drawn and
  // dropped (another rank trains it): every rank's generators stay the same.
  virtual void skip_micro(int64_t /*step*/, int64_t /*micro*/) {}
  // Extra log fields of a finished step (1-based): the epoch.
  virtual nlohmann::json step_fields(int64_t /*step*/) { return nlohmann::json::object(); }
  // The evaluation after `step` steps (0: before the first, when asked).
  virtual Evaluation evaluate(int64_t step) = 0;
  virtual void after_eval(int64_t /*step*/) {}             // report.html, samples
  virtual void after_step(int64_t /*step*/) {}             // the end of an epoch
  virtual void after_save(const std::string& /*path*/) {}  // files beside a checkpoint
};

struct LoopSettings {
  std::string program;  // "tinylm train", "tinylm finetune": starts messages
  int64_t total_steps = 0;
  int64_t micro_batches = 1;
  LrSchedule schedule;
  double grad_clip = 0;  // 0: no clipping
  int64_t log_interval = 1, eval_interval = 1, checkpoint_interval = 1;
  bool evaluate_first = false;  // step 0's evaluation, for a new run
  bool keep_best = false;       // best.safetensors
  int64_t grad_norm_layers =
      0;  // > 0: the model's n_layer, whose norms are logged ("grad_norm_layers")
  double flops_per_step = 0;  // > 0: "mfu" against the machine's measured peak
  double peak_flops = 0;      // that peak: 0 for the CPU's (measured at the start)
  bool quiet = false;
  int64_t stop_after = -1;  // stop with a checkpoint once this many steps are done
  // Data parallelism: the ranks (null: dist::world()), how gradients are summed, and
  // whether every step checks that the ranks' parameters agree (exit 1 if not).
  dist::Communicator* comm = nullptr;
  dist::ReduceMode reduce = dist::ReduceMode::kSum;
  bool check_replicas = false;
  // A config's shared train / finetune settings (run/shared_settings.h): the lr schedule
  // (cosine decay to min_lr at decay_steps), clipping, the intervals.
  void use(const OptimizerSettings& o, const LoopCounts& l, int64_t decay_steps) {
    schedule = lr_schedule(o, decay_steps);
    grad_clip = o.grad_clip;
    log_interval = l.log_interval;
    eval_interval = l.eval_interval;
    checkpoint_interval = l.checkpoint_interval;
  }
  void use(const DistSettings& d) {  // a config's "dist" section
    reduce = dist::reduce_mode(d.reduce, "dist.reduce");
    check_replicas = d.check_replicas;
  }
};

// Runs from session.step. Returns 0 (done, or stopped at stop_after), 130 (Ctrl-C:
// checkpoint saved), 1 (a NaN or infinite loss, weight or moment: nothing written over
// the last good checkpoint) or 2 (ranks started with different steps, intervals or
// stop_after: nothing done).
int run_training_loop(TrainingTask& task, RunSession& session, const LoopSettings& settings);

}  // namespace tinylm
