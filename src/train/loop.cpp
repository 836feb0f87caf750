#include "train/loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "report/device.h"
#include "train/interrupt.h"
#include "train/layer_grad_norms.h"
#include "train/progress.h"

namespace tinylm {

namespace {

using Clock = std::chrono::steady_clock;

// Tokens and steps since the last logged step, for tokens/s and MFU, and the host's time
// in each part of the steps (log.jsonl's step_ms). On a GPU the host waits for the
// device only where a kernel's contract needs its result (a loss, clipping's norm), so a
// part's time there is when the host got past it, not the device's time for it.
struct Window {
  Clock::time_point start = Clock::now();
  int64_t steps = 0, tokens = 0;
  double allreduce_seconds = 0;  // in the gradient sum and the step's totals
  double zero_grad_seconds = 0, micro_seconds = 0, clip_seconds = 0, optimizer_seconds = 0;
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The parts of a step one after another: add_to(part) adds the time since the last mark.
class PartClock {
 public:
  void restart() { mark_ = Clock::now(); }
  void add_to(double& seconds) {
    const Clock::time_point now = Clock::now();
    seconds += std::chrono::duration<double>(now - mark_).count();
    mark_ = now;
  }

 private:
  Clock::time_point mark_ = Clock::now();
};

// The loop's state between steps.
class Loop {
 public:
  Loop(TrainingTask& task, RunSession& session, const LoopSettings& s)
      : task_(task),
        session_(session),
        s_(s),
        comm_(s.comm ? *s.comm : dist::world()),
        root_(comm_.rank() == 0),
        progress_(s.total_steps, s.quiet || !root_),
        peak_flops_(s.flops_per_step <= 0 ? 0
                    : s.peak_flops > 0    ? s.peak_flops * comm_.size()
                                          : report::probe_cpu().fp32_flops * comm_.size()),
        sync_(session.params(), comm_, s.reduce) {}

  int run();

 private:
  enum class StepEnd { Done, NonFinite, Interrupted };
  StepEnd train_step();
  // Forward and backward of this rank's micro-batches; their summed loss and tokens.
  MicroStep micro_batches(int64_t step, bool& interrupted);
  bool replicas_agree();    // false (after a message): the ranks' parameters differ
  bool all_ranks(bool ok);  // ok on every rank
  bool ranks_run_the_same_loop();
  void log_step(double loss, double lr, double grad_norm, const std::vector<double>& norms);
  bool evaluate(int64_t step);  // false: best.safetensors could not be written
  void stop_message(const std::string& what);

  TrainingTask& task_;
  RunSession& session_;
  const LoopSettings& s_;
  dist::Communicator& comm_;
  bool root_;  // rank 0: logs, evaluates and writes
  Progress progress_;
  double peak_flops_;  // of all ranks
  dist::GradientSync sync_;
  Window window_;
  bool interrupted_ = false;  // Ctrl-C seen (on any rank) at the end of the last step
};

MicroStep Loop::micro_batches(int64_t step, bool& interrupted) {
  const int64_t world = comm_.size(), rank = comm_.rank();
  const float scale = 1.0f / static_cast<float>(s_.micro_batches);
  const uint64_t step_key = session_.dropout_rng.next_u64();
  MicroStep sum;
  sync_.begin_step();
  for (int64_t micro = 0; micro < s_.micro_batches; ++micro) {
    if (world == 1 && micro > 0 && interrupt_requested()) {
      interrupted = true;
      return sum;
    }
    if (micro % world != rank) {
      task_.skip_micro(step, micro);
      continue;
    }
    if (micro >= world && sync_.zero_between_micros()) session_.zero_grad();
    Rng dropout(step_key);  // every micro-batch's: the task keys masks by sequence
    const MicroStep m = task_.train_micro(step, micro, scale, nn::Context{true, &dropout});
    sum.loss += m.loss / static_cast<double>(s_.micro_batches);
    sum.tokens += m.tokens;
    sync_.after_micro();
  }
  const Clock::time_point reduce_start = Clock::now();
  sync_.finish_step();
  window_.allreduce_seconds += seconds_since(reduce_start);
  return sum;
}

bool Loop::all_ranks(bool ok) {
  if (comm_.size() == 1) return ok;
  double failed = ok ? 0.0 : 1.0;
  comm_.all_reduce_sum(&failed, 1);
  return failed == 0;
}

// Every rank must take the same steps, evaluations and checkpoints, or one would wait
// forever in a collective the others never reach: the settings that decide them are
// compared (a sum over ranks equals size x a rank's own value only if all are equal, and
// where they are not, some rank sees it).
bool Loop::ranks_run_the_same_loop() {
  if (comm_.size() == 1) return true;
  const std::vector<double> mine = {static_cast<double>(s_.total_steps),
                                    static_cast<double>(s_.micro_batches),
                                    static_cast<double>(s_.log_interval),
                                    static_cast<double>(s_.eval_interval),
                                    static_cast<double>(s_.checkpoint_interval),
                                    static_cast<double>(s_.stop_after),
                                    s_.evaluate_first ? 1.0 : 0.0,
                                    s_.check_replicas ? 1.0 : 0.0,
                                    static_cast<double>(session_.step)};
  std::vector<double> sums = mine;
  comm_.all_reduce_sum(sums.data(), static_cast<int64_t>(sums.size()));
  bool same = true;
  for (size_t i = 0; i < mine.size(); ++i) same = same && sums[i] == comm_.size() * mine[i];
  if (all_ranks(same)) return true;
  stop_message(
      "the ranks were started with different settings (steps, intervals, "
      "--stop-after or the step resumed from); give every rank the same command.");
  return false;
}

bool Loop::replicas_agree() {
  const std::vector<double> sums =
      dist::gather_checksums(dist::parameter_checksum(session_.params()), comm_);
  if (std::all_of(sums.begin(), sums.end(), [&](double v) { return v == sums[0]; })) return true;
  stop_message("the ranks' parameters differ after step " + std::to_string(session_.step) +
               " (dist.check_replicas); stopping.");
  return false;
}

Loop::StepEnd Loop::train_step() {
  const int64_t step = session_.step;
  const double lr = s_.schedule.at(step);
  PartClock parts;
  session_.zero_grad();
  parts.add_to(window_.zero_grad_seconds);
  const Rng batches_before = session_.batch_rng, dropout_before = session_.dropout_rng;
  bool dropped = false;
  const MicroStep mine = micro_batches(step, dropped);
  parts.add_to(window_.micro_seconds);
  if (dropped) {
    // Ctrl-C inside a long step (one process): the step is dropped (generators as at its
    // start), so the checkpoint written next is the state after the last whole step.
    session_.batch_rng = batches_before;
    session_.dropout_rng = dropout_before;
    interrupted_ = true;
    return StepEnd::Interrupted;
  }
  // The loss (each micro-batch's counts 1 / micro-batches of the whole step, so the sum
  // over ranks is the mean), the tokens of all ranks, and Ctrl-C on any rank: every rank
  // stops at the same step.
  double totals[3] = {mine.loss, static_cast<double>(mine.tokens),
                      interrupt_requested() ? 1.0 : 0.0};
  if (comm_.size() > 1) {
    const Clock::time_point reduce_start = Clock::now();
    sync_.sum_over_ranks(totals, 3);
    window_.allreduce_seconds += seconds_since(reduce_start);
  }
  const double loss = totals[0];
  window_.tokens += static_cast<int64_t>(totals[1]);
  interrupted_ = totals[2] > 0;
  if (!std::isfinite(loss)) {
    stop_message(std::string("the loss became ") + (std::isnan(loss) ? "NaN" : "infinite") +
                 " at step " + std::to_string(step + 1) + "; stopping.");
    return StepEnd::NonFinite;
  }
  const bool logged = (step + 1) % s_.log_interval == 0 || step + 1 == s_.total_steps;
  const std::vector<double> norms = logged && s_.grad_norm_layers > 0
                                        ? layer_grad_norms(session_.params(), s_.grad_norm_layers)
                                        : std::vector<double>{};
  parts.restart();  // the loss check and layer norms are not a part of their own
  const double grad_norm =
      clip_gradients(session_.params(), s_.grad_clip > 0 ? s_.grad_clip : 1e30);
  parts.add_to(window_.clip_seconds);
  session_.optimizer().step(static_cast<float>(lr));
  parts.add_to(window_.optimizer_seconds);
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
  if (s_.grad_norm_layers > 0) entry["grad_norm_layers"] = norms;
  const double per_step_ms = 1e3 / static_cast<double>(std::max<int64_t>(window_.steps, 1));
  entry["step_ms"] = {{"all", secs * per_step_ms},
                      {"zero_grad", window_.zero_grad_seconds * per_step_ms},
                      {"forward_backward", window_.micro_seconds * per_step_ms},
                      {"clip", window_.clip_seconds * per_step_ms},
                      {"optimizer", window_.optimizer_seconds * per_step_ms}};
  if (comm_.size() > 1)  // the time a step spends summing over the ranks (waits included)
    entry["allreduce_ms"] = 1e3 * window_.allreduce_seconds / static_cast<double>(window_.steps);
  progress_.step(step - 1, loss, lr, tps, mfu);
  if (root_) session_.log().write(entry);
  window_ = Window{};
}

bool Loop::evaluate(int64_t step) {
  if (!root_) return true;  // rank 0 evaluates; the others go on to the next all-reduce
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
  if (!root_) return;  // rank 0 speaks for the run
  std::fprintf(stderr, "%s: %s %s\n", s_.program.c_str(), what.c_str(),
               session_.what_is_saved().c_str());
}

int Loop::run() {
  if (!ranks_run_the_same_loop()) return 2;
  dist::broadcast_parameters(session_.params(), comm_);  // every rank starts from rank 0's
  if (s_.check_replicas && !replicas_agree()) return 1;
  if (s_.evaluate_first && !session_.resumed()) evaluate(0);
  window_ = Window{};
  while (session_.step < s_.total_steps) {
    const StepEnd end = train_step();
    if (end == StepEnd::NonFinite) return 1;
    if (s_.check_replicas && !replicas_agree()) return 1;
    const bool dropped = end == StepEnd::Interrupted;
    const int64_t step = session_.step;
    bool saved_ok = true;
    if (!dropped && (step % s_.eval_interval == 0 || step == s_.total_steps)) {
      saved_ok = evaluate(step);
      saved_ok = all_ranks(saved_ok);  // best.safetensors is rank 0's to write
    }
    if (saved_ok && !dropped && root_) task_.after_step(step);
    // One process looks again (Ctrl-C during the evaluation); ranks use what they agreed.
    const bool interrupted = comm_.size() == 1 ? interrupt_requested() : interrupted_;
    const bool stop_here = s_.stop_after >= 0 && step >= s_.stop_after;
    if (saved_ok && (step % s_.checkpoint_interval == 0 || step == s_.total_steps || interrupted ||
                     stop_here)) {
      saved_ok = session_.save(session_.last_path());  // rank 0 writes; every rank checks
      if (saved_ok && root_) task_.after_save(session_.last_path());
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
  dist::Communicator& comm = settings.comm ? *settings.comm : dist::world();
  install_interrupt_handler(comm.rank() == 0);
  const int code = Loop(task, session, settings).run();
  comm.barrier();  // no rank ends (or aborts the job) while rank 0 still writes
  restore_default_interrupt();
  return code;
}

}  // namespace tinylm
