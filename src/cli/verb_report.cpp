// tinylm report --run RUN_DIR: (re)writes RUN_DIR/report.html from the run's checkpoint
// and log, as the trainer does after each evaluation (train/run_report.h; a fine-tuning
// run's: finetune/finetune_report.h); for runs made before the report existed, or to
// refresh the samples with another seed.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "finetune/finetune_report.h"
#include "open/loaded_run.h"
#include "open/model_source.h"
#include "report/text_table.h"
#include "train/run_report.h"
#include "train/samples.h"
#include "train/training_data.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

int run_report(int argc, char** argv) {
  CLI::App app{
      "Write RUN_DIR/report.html: summary, loss curves, a sample, attention maps of a "
      "fixed input, parameter/FLOP/memory tables and the config (the trainer "
      "refreshes it at every evaluation).",
      "tinylm report"};
  std::string run;
  uint64_t seed = 1;
  app.add_option("--run", run, "run folder")->required();
  app.add_option("--seed", seed, "seed for the sample")->capture_default_str()->check(kSeed);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(file_exists(run + "/config.json"), run + ": not a run folder (no config.json)");
  if (!finetune_task_of(run).empty()) {  // a classify or instruct run
    finetune::rewrite_finetune_report(run);
    std::printf("wrote %s/report.html\n", run.c_str());
    return 0;
  }

  LoadedRun loaded = load_run(run);
  const nlohmann::json tokenizer_json = loaded.tokenizer->to_json();
  const TrainingData data(loaded.config, &tokenizer_json);
  const std::string caption = "step " + report::with_commas(loaded.step) + " (" +
                              loaded.checkpoint.substr(loaded.checkpoint.find_last_of('/') + 1) +
                              ")";
  std::vector<std::pair<std::string, std::string>> samples;
  if (data.is_addition()) {
    samples.push_back(
        {caption + ": held-out problems, greedy", addition_examples(*loaded.model, 8)});
  } else if (loaded.config.sample.max_new_tokens > 0) {
    samples.push_back({caption + ", seed " + std::to_string(seed),
                       sample_text(*loaded.model, *loaded.tokenizer, loaded.config.sample, seed)});
  }
  const auto input = data.fixed_input(std::min<int64_t>(loaded.config.model.block_size, 32));
  write_run_report(*loaded.model, *loaded.tokenizer, report_settings(loaded.config),
                   {run, loaded.step, input, samples});
  std::printf("wrote %s/report.html\n", run.c_str());
  return 0;
}

}  // namespace tinylm::cli
