#include "finetune/finetune_report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "data/instruction_data.h"
#include "finetune/epoch_task.h"
#include "finetune/respond.h"
#include "open/instruct_run.h"
#include "open/model_source.h"
#include "report/text_table.h"
#include "run/trainable.h"
#include "train/run_report.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::finetune {

namespace {

nlohmann::json json_or_null(const std::string& path) {
  return file_exists(path) ? read_json_file(path) : nlohmann::json();
}

int64_t rewrite_classify_report(const std::string& dir) {
  const ClassifyRun run = load_classify_run(dir, "tinylm report");
  const FinetuneSettings& f = run.config.finetune;
  const ClassificationData data =
      load_classification_data(run.config.data, *run.tokenizer, run_data_options(run));
  const GPTConfig& body = run.model->body().config();
  const ParameterCounts counts = count_parameters(run.model->parameters());
  std::vector<std::pair<std::string, std::string>> summary = {
      {"task", "classify: " + labels_summary(data)},
      {"trainable", TrainableSet::parse(f.trainable).to_string() + ": " +
                        report::with_commas(counts.trainable) + " trainable, " +
                        report::with_commas(counts.frozen) + " frozen"},
      {"pooling", f.pooling}};
  if (const auto before = json_or_null(dir + "/accuracy-before.json"); !before.is_null())
    summary.emplace_back("accuracy before (train / val / test)", accuracies_text(before));
  if (const auto results = json_or_null(dir + "/results.json"); results.contains("accuracy_after"))
    summary.emplace_back("accuracy after (train / val / test)",
                         accuracies_text(results["accuracy_after"]));
  write_run_report(
      run.model->body(), *run.tokenizer,
      report_settings(run.config, total_steps(f, data.train.size()),
                      read_json_file(dir + "/config.json").dump(2)),
      {dir, run.step, report_input(data.train.ids.data(), data.max_length, body.block_size), {}},
      summary);
  return run.step;
}

int64_t rewrite_instruct_report(const std::string& dir) {
  const InstructRun run = load_instruct_run(dir, "tinylm report");
  const FinetuneSettings& f = run.config.finetune;
  const InstructionData data =
      load_instruction_data(run.config.data, *run.tokenizer, {f.train_fraction, f.test_fraction});
  const GPTConfig& model = run.model->config();
  const InstructionEntry& e = data.val.size() > 0 ? data.val.entries[0] : data.train.entries[0];
  const std::vector<std::pair<std::string, std::string>> samples = {
      {"step " + report::with_commas(run.step) + " (checkpoint), greedy: " + e.instruction,
       respond(*run.model, *run.tokenizer, e, std::min<int64_t>(f.max_new_tokens, 128))}};
  std::vector<std::pair<std::string, std::string>> summary;
  const nlohmann::json results = json_or_null(dir + "/results.json");
  for (const char* split : {"train", "val", "test"})
    if (results.contains(std::string(split) + "_loss"))
      summary.emplace_back(std::string("final ") + split + " loss (all entries)",
                           results[std::string(split) + "_loss"].dump());
  const std::vector<int32_t>& first = data.train.encoded[0].ids;
  write_run_report(
      *run.model, *run.tokenizer,
      report_settings(run.config, total_steps(f, data.train.size()),
                      read_json_file(dir + "/config.json").dump(2)),
      {dir, run.step,
       report_input(first.data(), static_cast<int64_t>(first.size()), model.block_size), samples},
      summary);
  return run.step;
}

}  // namespace

RunReportSettings report_settings(const FinetuneConfig& c, int64_t total_steps,
                                  std::string config_json) {
  RunReportSettings s;
  s.max_steps = total_steps;
  s.batch_size = c.finetune.batch_size;
  s.data = c.data;
  s.config_json = std::move(config_json);
  return s;
}

std::vector<int32_t> report_input(const int32_t* ids, int64_t n, int64_t block_size) {
  return std::vector<int32_t>(ids, ids + std::min<int64_t>({32, n, block_size}));
}

std::string percent_text(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * fraction);
  return buf;
}

std::string accuracies_text(const nlohmann::json& j) {
  std::string text;
  for (const char* split : {"train", "val", "test"}) {
    if (!text.empty()) text += " / ";
    text += j.contains(split) && j[split].is_number() ? percent_text(j[split].get<double>())
                                                      : std::string("(no ") + split + " split)";
  }
  return text;
}

std::string labels_summary(const ClassificationData& data) {
  std::string text;
  for (size_t i = 0; i < data.labels.size(); ++i)
    text += (i ? ", " : "") + data.labels[i] + " (" + std::to_string(data.class_counts[i]) + ")";
  return text;
}

ClassificationOptions run_data_options(const ClassifyRun& run) {
  ClassificationOptions o = classify_data_options(run.config.finetune);
  o.labels = run.model->config().labels;
  o.max_length = run.max_length;  // the length the run was trained at
  o.pad_id = run.pad_id;
  return o;
}

int64_t rewrite_finetune_report(const std::string& dir) {
  const std::string task = finetune_task_of(dir);
  if (task == "classify") return rewrite_classify_report(dir);
  if (task == "instruct") return rewrite_instruct_report(dir);
  throw InputError("--run " + dir + ": not a tinylm finetune run (no config.json with a task)");
}

}  // namespace tinylm::finetune
