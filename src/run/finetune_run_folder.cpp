#include "run/finetune_run_folder.h"

#include <nlohmann/json.hpp>

#include "run/run_folder.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm {

void require_finetune_run(const std::string& dir, const std::string& task,
                          const std::string& verb) {
  const std::string found = finetune_task_of(dir);
  require(!found.empty(),
          "--run " + dir + ": not a tinylm finetune run (no config.json with a task)");
  if (found != task) {
    const std::string other = found == "classify" ? "tinylm classify" : "tinylm respond";
    throw InputError("--run " + dir + " is a '" + found + "' run; " + verb + " needs a '" + task +
                     "' run (use " + other + ")");
  }
  require(file_exists(checkpoint_path(dir)),
          "--run " + dir + ": no checkpoint " + checkpoint_path(dir));
}

nlohmann::json saved_config(const FinetuneConfig& config, const nlohmann::json& run_info) {
  nlohmann::json j = config.to_json();
  j["run"] = run_info;
  return j;
}

}  // namespace tinylm
