// The run folder of `tinylm finetune`, and reading a finished one back.
//   config.json            the FinetuneConfig (finetune_config.h) plus "run": what the
//                          run learnt about its model (GPTConfig, and for classify the
//                          labels, the padded length, the pad id)
//   tokenizer.json         the tokenizer
//   log.jsonl              steps and evaluations (train/run_log.h)
//   last.safetensors       the checkpoint (train/checkpoint.h: weights, AdamW moments of
//                          the trainable tensors, generator states, step; the config
//                          above in its metadata)
//   report.html            curves, samples, tables (train/run_report.h)
//   test-responses.json    instruct: the test entries with "model_response"
//   results.json           the final figures (losses, accuracies)
// Nothing saved is overwritten: a new run needs an empty or missing --out (or a
// finetune run of the same task that never wrote a checkpoint); --resume needs its
// checkpoint.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "finetune/finetune_config.h"
#include "tokenizer/tokenizer.h"
#include "train/run_folder.h"

namespace tinylm::finetune {

inline std::string checkpoint_path(const std::string& dir) {
  return dir + "/last.safetensors";
}

// InputError unless `dir` may hold a run of `task` (see above).
void check_out_dir(const std::string& dir, const std::string& task, bool resume);

// Exit-2 check for the verbs: `dir` is a finetune run of `task` with a checkpoint. The
// message names the verb to use for the other task.
void require_finetune_run(const std::string& dir, const std::string& task, const std::string& verb);

// The saved config JSON of a run: FinetuneConfig::to_json() plus "run": run_info.
nlohmann::json saved_config(const FinetuneConfig& config, const nlohmann::json& run_info);
// The first writes of a run, once every check on the input is done: locks `dir` (creating
// it and its marker; a second run is refused, exit 2), then writes config.json (`saved`)
// and tokenizer.json. The lock holds while the returned object lives.
std::unique_ptr<RunFolderLock> open_run_folder(const std::string& dir, const nlohmann::json& saved,
                                               const Tokenizer& tokenizer);

// Differences between the settings of a run being resumed and the ones given now.
// InputError naming the first field that differs.
void require_same_settings(const FinetuneConfig& saved, const FinetuneConfig& given,
                           const std::string& what);

}  // namespace tinylm::finetune
