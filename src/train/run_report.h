// report.html in a run folder: what the run looks like now (report/html_report.h).
// The trainer rewrites it after every evaluation; `tinylm report --run DIR` writes it for
// a finished run. Reads DIR/log.jsonl for the curves; runs one forward pass of `model`
// (inference mode: no dropout, no gradients) over `fixed_input` for the attention maps.
// Written atomically (temp file + rename).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lora/lora.h"
#include "model/gpt.h"
#include "run/train_config.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct RunReportInputs {
  std::string dir;                                           // the run folder
  int64_t step = 0;                                          // the model's step
  std::vector<int32_t> fixed_input;                          // <= block_size ids
  std::vector<std::pair<std::string, std::string>> samples;  // caption -> text, newest first
};

// What the page says of the run's settings (each trainer gives its own).
struct RunReportSettings {
  int64_t max_steps = 0;           // "step S of N"
  int64_t batch_size = 0;          // the batch of the memory table
  std::string data;                // the corpus, "task: addition", a fine-tuning data file
  std::optional<LoraConfig> lora;  // the adapters the run trains (none: its parameters)
  std::string config_json;         // the config shown
};

// A `tinylm train` run's.
RunReportSettings report_settings(const TrainConfig& c);

// Rows a fine-tuning run adds to the summary table (accuracies, losses).
using RunReportRows = std::vector<std::pair<std::string, std::string>>;

// The page's text (also what write_run_report writes).
std::string run_report_page(GPT& model, const Tokenizer& tok, const RunReportSettings& settings,
                            const RunReportInputs& in, const RunReportRows& rows = {});
void write_run_report(GPT& model, const Tokenizer& tok, const RunReportSettings& settings,
                      const RunReportInputs& in, const RunReportRows& rows = {});

}  // namespace tinylm
