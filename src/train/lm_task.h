// Language-model training as a task of the one loop (loop.h): `tinylm train`'s batches
// (random or sliding windows of a corpus, or addition problems), its evaluation (mean
// loss over eval_iters batches of each split, with the metric: bpc or ppl), the samples
// and report.html after each evaluation, and the PEFT adapter beside last.safetensors
// under LoRA.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "lora/lora.h"
#include "model/gpt.h"
#include "train/loop.h"
#include "train/training_data.h"

namespace tinylm {

class LmTask : public TrainingTask {
 public:
  // Everything is borrowed and must outlive the task; lora may be null.
  LmTask(GPT& model, const TrainingData& data, const TrainConfig& config, RunSession& session,
         LoraSet* lora);

  MicroStep train_micro(int64_t step, int64_t micro, float scale, const nn::Context& ctx) override;
  void skip_micro(int64_t step, int64_t micro) override;  // the batch drawn and dropped
  Evaluation evaluate(int64_t step) override;
  void after_eval(int64_t step) override;
  void after_save(const std::string& path) override;

 private:
  double estimate_loss(const std::string& split, int64_t step);
  Batch micro_batch(int64_t step, int64_t micro);

  GPT& model_;
  const TrainingData& data_;
  const TrainConfig& c_;
  RunSession& session_;
  LoraSet* lora_;
  std::vector<int32_t> report_input_;
  std::vector<std::pair<std::string, std::string>> samples_;  // for report.html, newest first
};

}  // namespace tinylm
