#include "train/loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "report/device.h"
#include "train/interrupt.h"
#include "train/layer_grad_norms.h"
#include "train/progress.h"

namespace tinylm {

namespace {

using Clock = std::chrono::steady_clock;

// Tokens and steps since the last logged step, for tokens/s and MFU.
struct Window {
  Clock::time_point start = Clock::now();
  int64_t steps = 0, tokens = 0;
};

// The loop's state between steps.
class Loop {
 public:
  Loop(TrainingTask& task, RunSession& session, const LoopSettings& s)
      : task_(task),
        session_(session),
        s_(s),
        progress_(s.total_steps, s.quiet),
        peak_flops_(s.flops_per_step <= 0 ? 0
                    : s.peak_flops > 0    ? s.peak_flops
                                          : report::probe_cpu().fp32_flops) {}

  int run();

 private:
  enum class StepEnd { Done, NonFinite, Interrupted };
  StepEnd train_step();
  void log_step(double loss, double lr, double grad_norm, const std::vector<double>& norms);
  bool evaluate(int64_t step);  // false: best.safetensors could not be written
  void stop_message(const std::string& what);

  TrainingTask& task_;
  RunSession& session_;
  const LoopSettings& s_;
  Progress progress_;
  double peak_flops_;
  Window window_;
};

Loop::StepEnd Loop::train_step() {
  const int64_t step = session_.step;
  const double lr = s_.schedule.at(step);
  session_.zero_grad();
  const Rng batches_before = session_.batch_rng, dropout_before = session_.dropout_rng;
  const nn::Context ctx{true, &session_.dropout_rng};
  const float scale = 1.0f / static_cast<float>(s_.micro_batches);
  double loss = 0;
  for (int64_t micro = 0; micro < s_.micro_batches; ++micro) {
    if (micro > 0 && interrupt_requested()) {
      // Ctrl-C inside a long step: the step is dropped (generators as at its start), so
      // the checkpoint written next is the state after the last whole step.
      session_.batch_rng = batches_before;
      session_.dropout_rng = dropout_before;
      return StepEnd::Interrupted;
    }
    const MicroStep m = task_.train_micro(step, micro, scale, ctx);
    loss += m.loss / static_cast<double>(s_.micro_batches);
    window_.tokens += m.tokens;
  }
  if (!std::isfinite(loss)) {
    stop_message(std::string("the loss became ") + (std::isnan(loss) ? "NaN" : "infinite") +
                 " at step " + std::to_string(step + 1) + "; stopping.");
    return StepEnd::NonFinite;
  }
  const bool logged = (step + 1) % s_.log_interval == 0 || step + 1 == s_.total_steps;
  const std::vector<double> norms = logged && s_.layer_norms > 0
                                        ? layer_grad_norms(session_.params(), s_.layer_norms)
                                        : std::vector<double>{};
  const double grad_norm =
      clip_gradients(session_.params(), s_.grad_clip > 0 ? s_.grad_clip : 1e30);
  session_.optimizer().step(static_cast<float>(lr));
  ++session_.step;
  ++window_.steps;
  if (logged) log_step(loss, lr, grad_norm, norms);
  return StepEnd::Done;
}

void Loop::log_step(double loss, double lr, double grad_norm, const std::vector<double>& norms) {
  const int64_t step = session_.step;
  const double secs =
      std::max(std::chrono::duration<double>(Clock::now() - window_.start).count(), 1e-9);
  const double tps = static_cast<double>(window_.tokens) / secs;
  nlohmann::json entry = task_.step_fields(step);
  entry.update({{"step", step},
                {"loss", loss},
                {"lr", lr},
                {"grad_norm", grad_norm},
                {"tokens_per_s", tps}});
  double mfu = -1;
  if (s_.flops_per_step > 0) {  // as nanoGPT and llm.c: model FLOPs per second over the peak
    mfu = static_cast<double>(window_.steps) * s_.flops_per_step / secs / peak_flops_;
    entry["mfu"] = mfu;
  }
  if (s_.layer_norms > 0) entry["grad_norm_layers"] = norms;
  progress_.step(step - 1, loss, lr, tps, mfu);
  session_.log().write(entry);
  window_ = Window{};
}

bool Loop::evaluate(int64_t step) {
  const Evaluation e = task_.evaluate(step);
  nlohmann::json entry = e.fields;
  entry["step"] = step;
  session_.log().write(entry);
  progress_.line(e.line);
  if (step == 0) return true;
  if (!std::isnan(e.val_loss)) session_.last_val_loss = e.val_loss;
  if (s_.keep_best && e.val_loss < session_.best_val_loss) {
    session_.best_val_loss = e.val_loss;
    if (!session_.save(session_.best_path())) return false;
    task_.after_save(session_.best_path());
  }
  task_.after_eval(step);
  return true;
}

void Loop::stop_message(const std::string& what) {
  progress_.finish();
  std::fprintf(stderr, "%s: %s %s\n", s_.program.c_str(), what.c_str(),
               session_.what_is_saved().c_str());
}

int Loop::run() {
  if (s_.evaluate_first && !session_.resumed()) evaluate(0);
  window_ = Window{};
  while (session_.step < s_.total_steps) {
    const StepEnd end = train_step();
    if (end == StepEnd::NonFinite) return 1;
    const bool dropped = end == StepEnd::Interrupted;
    const int64_t step = session_.step;
    bool saved_ok = true;
    if (!dropped && (step % s_.eval_interval == 0 || step == s_.total_steps))
      saved_ok = evaluate(step);
    if (saved_ok && !dropped) task_.after_step(step);
    const bool interrupted = interrupt_requested();
    const bool stop_here = s_.stop_after >= 0 && step >= s_.stop_after;
    if (saved_ok && (step % s_.checkpoint_interval == 0 || step == s_.total_steps || interrupted ||
                     stop_here)) {
      saved_ok = session_.save(session_.last_path());
      if (saved_ok) task_.after_save(session_.last_path());
    }
    if (!saved_ok) {
      stop_message(session_.non_finite() + " is not finite at step " + std::to_string(step) +
                   " (the learning rate is too high?); stopping without writing a checkpoint.");
      return 1;
    }
    if (interrupted) {
      progress_.line("interrupted at step " + std::to_string(step) + ": checkpoint saved to " +
                     session_.last_path() + " (continue with --resume)");
      progress_.finish();
      return 130;
    }
    if (stop_here) break;
  }
  progress_.finish();
  return 0;
}

}  // namespace

int run_training_loop(TrainingTask& task, RunSession& session, const LoopSettings& settings) {
  install_interrupt_handler();
  const int code = Loop(task, session, settings).run();
  restore_default_interrupt();
  return code;
}

}  // namespace tinylm
