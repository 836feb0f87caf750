// The run folder of `tinylm finetune`, and reading a finished one back.
//   config.json            the FinetuneConfig (finetune_config.h) plus "run": what the
//                          run learnt about its model (GPTConfig, and for classify the
//                          labels, the padded length, the pad id)
//   tokenizer.json         the tokenizer
//   log.jsonl              steps and evaluations (train/run_log.h)
//   last.safetensors       the checkpoint (run/checkpoint.h: weights, AdamW moments of
//                          the trainable tensors, generator states, step; the config
//                          above in its metadata)
//   report.html            curves, samples, tables (train/run_report.h)
//   test-responses.json    instruct: the test entries with "model_response"
//   results.json           the final figures (losses, accuracies)
// Nothing saved is overwritten: the folder rules are run/run_folder.h's (one policy for
// every task), and what --resume may change is finetune_plan.h's list.
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "run/finetune_config.h"
#include "util/error.h"

namespace tinylm {

inline std::string checkpoint_path(const std::string& dir) {
  return dir + "/last.safetensors";
}

// Exit-2 check for the verbs: `dir` is a finetune run of `task` with a checkpoint. The
// message names the verb to use for the other task.
void require_finetune_run(const std::string& dir, const std::string& task, const std::string& verb);

// The saved config JSON of a run: FinetuneConfig::to_json() plus "run": run_info.
nlohmann::json saved_config(const FinetuneConfig& config, const nlohmann::json& run_info);

// Runs `read` (building a run's model from its checkpoint's config); an InputError that
// does not name `path` yet is rethrown naming it ("RUN/last.safetensors: ...").
template <class F>
auto naming_checkpoint(const std::string& path, F&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    if (std::string(e.what()).rfind(path, 0) == 0) throw;
    throw InputError(path + ": " + e.what());
  }
}

}  // namespace tinylm
