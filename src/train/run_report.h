// report.html in a run folder: what the run looks like now (report/html_report.h).
// The trainer rewrites it after every evaluation; `tinylm report --run DIR` writes it for
// a finished run. Reads DIR/log.jsonl for the curves; runs one forward pass of `model`
// (inference mode: no dropout, no gradients) over `fixed_input` for the attention maps.
// Written atomically (temp file + rename).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

// What a fine-tuning run adds: its own config (shown instead of c.to_json()) and rows
// for the summary table (accuracies, losses).
struct RunReportExtras {
  std::string config_json;
  std::vector<std::pair<std::string, std::string>> summary;
};

// The page's text (also what write_run_report writes).
std::string run_report_page(GPT& model, const Tokenizer& tok, const TrainConfig& c,
                            const RunReportInputs& in, const RunReportExtras& extras = {});
void write_run_report(GPT& model, const Tokenizer& tok, const TrainConfig& c,
                      const RunReportInputs& in, const RunReportExtras& extras = {});

}  // namespace tinylm
