#include "finetune/loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "data/classification_dataset.h"
#include "train/checkpoint.h"
#include "train/interrupt.h"
#include "train/progress.h"
#include "train/schedule.h"
#include "util/error.h"

namespace tinylm::finetune {

namespace {

// The shuffle of each epoch has its own generator, so that resuming mid-epoch draws the
// same order without saving it.
Rng epoch_rng(uint64_t seed, int64_t epoch) {
  return Rng(seed * 0x9E3779B97F4A7C15ULL + 0x51ED270B27A3C4F1ULL + static_cast<uint64_t>(epoch));
}

}  // namespace

AdamW make_optimizer(const ParameterList& params, const FinetuneSettings& f) {
  for (const auto& p : params) p.param->decay = f.decay_all || p.param->value.ndim() >= 2;
  return AdamW(params, AdamWConfig{static_cast<float>(f.lr), static_cast<float>(f.beta1),
                                   static_cast<float>(f.beta2), static_cast<float>(f.eps),
                                   static_cast<float>(f.weight_decay)});
}

LoopState start_state(const FinetuneSettings& f, const ParameterList& params, AdamW& optimizer,
                      const std::string& resume_from) {
  LoopState state;
  state.dropout_rng = Rng(f.seed + 2);
  if (!resume_from.empty()) {
    const CheckpointState s = load_checkpoint(resume_from, params, &optimizer);
    state.step = s.step;
    state.dropout_rng.set_state(s.dropout_rng);
  }
  return state;
}

int64_t steps_per_epoch(int64_t train_size, int64_t batch_size) {
  require(train_size >= batch_size, "the training split has " + std::to_string(train_size) +
                                        " examples, fewer than one batch (finetune.batch_size = " +
                                        std::to_string(batch_size) + ")");
  return train_size / batch_size;
}

int64_t total_steps(const FinetuneSettings& f, int64_t train_size) {
  const int64_t all = f.epochs * steps_per_epoch(train_size, f.batch_size);
  return f.max_steps > 0 ? std::min(all, f.max_steps) : all;
}

int run_loop(const FinetuneSettings& f, LoopTask& task, AdamW& optimizer, LoopState& state,
             RunLog& log, const LoopOptions& options) {
  const int64_t per_epoch = steps_per_epoch(task.train_size, f.batch_size);
  const int64_t total = total_steps(f, task.train_size);
  const LrSchedule schedule{f.lr, f.min_lr < 0 ? f.lr : f.min_lr, f.warmup_steps,
                            f.min_lr < 0 ? 0 : total};
  Progress progress(total, options.quiet);
  const nn::Context train_ctx{true, &state.dropout_rng};
  int64_t cached_epoch = -1;
  std::vector<std::vector<int64_t>> order;

  install_interrupt_handler();
  int exit_code = 0;
  auto window_start = std::chrono::steady_clock::now();
  int64_t window_tokens = 0;
  while (state.step < total) {
    const int64_t epoch = state.step / per_epoch;
    if (epoch != cached_epoch) {
      Rng rng = epoch_rng(f.seed, epoch);
      order = epoch_batches(task.train_size, f.batch_size, true, true, rng);
      cached_epoch = epoch;
    }
    const double lr = schedule.at(state.step);
    task.zero_grad();
    int64_t tokens = 0;
    const double loss = task.train_batch(order[state.step % per_epoch], train_ctx, &tokens);
    if (!std::isfinite(loss)) {
      progress.finish();
      std::fprintf(stderr,
                   "tinylm finetune: the loss became %s at step %lld; stopping (the last "
                   "checkpoint, if any, is kept)\n",
                   std::isnan(loss) ? "NaN" : "infinite", static_cast<long long>(state.step + 1));
      exit_code = 1;
      break;
    }
    const double grad_norm = clip_gradients(task.params, f.grad_clip > 0 ? f.grad_clip : 1e30);
    optimizer.step(static_cast<float>(lr));
    ++state.step;
    window_tokens += tokens;
    const int64_t step = state.step;

    if (step % f.log_interval == 0 || step == total) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - window_start).count();
      const double tps = window_tokens / std::max(secs, 1e-9);
      progress.step(step - 1, loss, lr, tps);
      log.write({{"step", step},
                 {"epoch", epoch + 1},
                 {"loss", loss},
                 {"lr", lr},
                 {"grad_norm", grad_norm},
                 {"tokens_per_s", tps}});
      window_start = std::chrono::steady_clock::now();
      window_tokens = 0;
    }
    if (step % f.eval_interval == 0 || step == total) {
      auto [entry, text] = task.evaluate(step);
      entry["step"] = step;
      log.write(entry);
      progress.line("step " + std::to_string(step) + " (epoch " + std::to_string(epoch + 1) +
                    "): " + text);
      if (task.after_eval) task.after_eval(step);
    }
    if ((step % per_epoch == 0 || step == total) && task.epoch_done)
      task.epoch_done(step, epoch + 1);
    const bool interrupted = interrupt_requested();
    const bool stop_here = options.stop_after >= 0 && step >= options.stop_after;
    if (step % f.checkpoint_interval == 0 || step == total || interrupted || stop_here)
      task.save(step);
    if (interrupted) {
      progress.line("interrupted at step " + std::to_string(step) +
                    ": checkpoint saved (continue with --resume)");
      exit_code = 130;
      break;
    }
    if (stop_here) break;
  }
  restore_default_interrupt();
  progress.finish();
  return exit_code;
}

}  // namespace tinylm::finetune
