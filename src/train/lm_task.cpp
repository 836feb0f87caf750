#include "train/lm_task.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lora/peft.h"
#include "report/text_table.h"
#include "train/run_report.h"
#include "train/samples.h"

namespace tinylm {

namespace {

std::string report_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Evaluation batches come from a generator derived from the seed and the step, so that
// evaluating never disturbs the training stream and a resumed run evaluates the same.
Rng eval_rng(uint64_t seed, int64_t step) {
  return Rng(seed * 0x9E3779B97F4A7C15ULL + step + 1);
}

}  // namespace

LmTask::LmTask(GPT& model, const TrainingData& data, const TrainConfig& config, RunSession& session,
               LoraSet* lora)
    : model_(model),
      data_(data),
      c_(config),
      session_(session),
      lora_(lora),
      report_input_(data.fixed_input(std::min<int64_t>(config.model.block_size, 32))) {}

// Micro-batch `micro` of step `step`: batch number step * grad_accum + micro of the run,
// whichever rank trains it (grad_accum counts the micro-batches of all ranks).
Batch LmTask::micro_batch(int64_t step, int64_t micro) {
  return data_.train_batch(c_.train.batch_size, c_.model.block_size, session_.batch_rng,
                           step * c_.train.grad_accum + micro);
}

void LmTask::skip_micro(int64_t step, int64_t micro) {
  micro_batch(step, micro);
}

MicroStep LmTask::train_micro(int64_t step, int64_t micro, float scale, const nn::Context& ctx) {
  const Batch b = micro_batch(step, micro);
  nn::Context in_step = ctx;
  in_step.first_row = micro * b.B;
  in_step.rows = b.B;
  const double loss = model_.forward_loss(b.inputs.data(), b.targets.data(), b.B, b.T, in_step);
  model_.backward(scale);
  return {loss, b.B * b.T};
}

double LmTask::estimate_loss(const std::string& split, int64_t step) {
  Rng rng = eval_rng(c_.train.seed ^ (split == "val" ? 0x5555 : 0xAAAA), step);
  double total = 0;
  for (int64_t i = 0; i < c_.train.eval_iters; ++i) {
    const Batch b = data_.eval_batch(split, c_.train.batch_size, c_.model.block_size, rng);
    total += model_.forward_loss(b.inputs.data(), b.targets.data(), b.B, b.T);
  }
  return total / static_cast<double>(c_.train.eval_iters);
}

Evaluation LmTask::evaluate(int64_t step) {
  const double train_loss = estimate_loss("train", step), val_loss = estimate_loss("val", step);
  const std::string m = data_.metric_name();
  Evaluation e;
  e.fields = {{"train_loss", train_loss}, {"val_loss", val_loss}};
  e.fields["train_" + m] = data_.metric(train_loss);
  e.fields["val_" + m] = data_.metric(val_loss);
  e.val_loss = val_loss;
  char buf[200];
  const auto vocab = static_cast<long long>(data_.tokenizer().vocab_size());
  if (step == 0)  // as nanoGPT: the untrained model's loss, about ln(vocab) (uniform guesses)
    std::snprintf(buf, sizeof buf, "step 0: train loss %.4f, val loss %.4f (ln %lld = %.4f)",
                  train_loss, val_loss, vocab, std::log(static_cast<double>(vocab)));
  else
    std::snprintf(buf, sizeof buf, "step %lld: train loss %.4f, val loss %.4f (val %s %.4f)",
                  static_cast<long long>(step), train_loss, val_loss, m.c_str(),
                  data_.metric(val_loss));
  e.line = buf;
  return e;
}

// report.html: newest samples first, then the figures (no effect on training: its own
// generator, inference-mode forward passes).
void LmTask::after_eval(int64_t step) {
  const std::string caption = "step " + report::with_commas(step);
  if (data_.is_addition()) {
    samples_.insert(samples_.begin(),
                    {caption + ": held-out problems, greedy", addition_examples(model_, 8)});
  } else if (c_.sample.max_new_tokens > 0) {
    SampleSettings s = c_.sample;
    s.max_new_tokens = std::min<int64_t>(s.max_new_tokens, 300);
    samples_.insert(samples_.begin(),
                    {caption + " (temperature " + report_number(s.temperature) + ", top-k " +
                         std::to_string(s.top_k) + ")",
                     sample_text(model_, data_.tokenizer(), s, c_.train.seed + step)});
  }
  if (samples_.size() > 3) samples_.resize(3);
  write_run_report(model_, data_.tokenizer(), report_settings(c_),
                   {session_.dir(), step, report_input_, samples_});
}

// The adapters alone, in PEFT's layout, beside the checkpoint (`tinylm lora merge` folds
// them into the base; PeftModel.from_pretrained loads them).
void LmTask::after_save(const std::string& path) {
  if (lora_ && path == session_.last_path())
    save_peft_adapter(*lora_, session_.dir() + "/adapter",
                      {"CAUSAL_LM", c_.train.init_from, nullptr});
}

}  // namespace tinylm
