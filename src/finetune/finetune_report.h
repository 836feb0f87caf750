// report.html of a fine-tuning run: the page `tinylm train` writes (train/run_report.h),
// with the run's own config and a summary of its task. The trainers write it at every
// evaluation; rewrite_finetune_report writes it again from the run folder alone
// (`tinylm report --run RUN` on a classify or instruct run).
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "data/classification_dataset.h"
#include "open/classify_run.h"
#include "run/finetune_config.h"
#include "train/run_report.h"

namespace tinylm::finetune {

// What report.html says of a fine-tuning run of total_steps: its data file, its batch and
// config_json, the config it shows.
RunReportSettings report_settings(const FinetuneConfig& c, int64_t total_steps,
                                  std::string config_json);

// The input the report's attention maps look at: the first ids of the first training
// example, at most 32 and at most the context.
std::vector<int32_t> report_input(const int32_t* ids, int64_t n, int64_t block_size);

// "97.50%"
std::string percent_text(double fraction);

// "97.50% / 95.00% / (no test split)": an accuracies object {"train", "val", "test"}.
std::string accuracies_text(const nlohmann::json& accuracies);

// "ham (747), spam (747)": the labels and how many examples each has.
std::string labels_summary(const ClassificationData& data);

// The data options a classify run was trained with (its labels, length and pad id).
ClassificationOptions run_data_options(const ClassifyRun& run);

// Rewrites RUN/report.html of a finetune run from its checkpoint, its data file (for the
// attention maps' input) and its log. Returns the step of the checkpoint.
int64_t rewrite_finetune_report(const std::string& dir);

}  // namespace tinylm::finetune
