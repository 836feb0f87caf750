#include "finetune/run_folder.h"

#include <filesystem>

#include "train/run_folder.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::finetune {

namespace fs = std::filesystem;

namespace {

// An empty folder, or one holding only the run marker (a run that stopped before it wrote
// anything else).
bool empty_or_marker_only(const std::string& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != kRunMarker) return false;
  return true;
}

}  // namespace

std::string finetune_task_of(const std::string& dir) {
  const std::string path = dir + "/config.json";
  if (!file_exists(path)) return "";
  try {
    const nlohmann::json j = read_json_file(path);
    if (j.is_object() && j.contains("task") && j["task"].is_string() && j.contains("finetune"))
      return j["task"].get<std::string>();
  } catch (const InputError&) {  // not a fine-tuning run's config: no task
  }
  return "";
}

void check_out_dir(const std::string& dir, const std::string& task, bool resume) {
  require(!dir.empty(), "no run folder (--out)");
  const std::string last = checkpoint_path(dir);
  if (!fs::exists(dir) || (fs::is_directory(dir) && empty_or_marker_only(dir))) {
    require(!resume, "--resume: no checkpoint " + last + " (" + dir + " is empty or missing)");
    return;
  }
  require(fs::is_directory(dir), "--out " + dir + " is a file, not a folder");
  const std::string found = finetune_task_of(dir);
  require(!found.empty(), "--out " + dir +
                              " is not empty and is not a tinylm finetune run (no config.json "
                              "with a task): choose another --out");
  require(found == task, "--out " + dir + " holds a finetune run of task '" + found + "', not '" +
                             task + "': choose another --out");
  if (resume) {
    require(file_exists(last), "--resume: no checkpoint " + last);
  } else {
    require(!file_exists(last), dir +
                                    " already holds a checkpoint: pass --resume to continue it, "
                                    "or choose another --out");
  }
}

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

void require_same_settings(const FinetuneConfig& saved, const FinetuneConfig& given,
                           const std::string& what) {
  const nlohmann::json a = saved.to_json(), b = given.to_json();
  for (const auto& [section, value] : a.items()) {
    if (!b.contains(section)) continue;
    if (value.is_object()) {
      for (const auto& [key, v] : value.items()) {
        const nlohmann::json other = b[section].value(key, nlohmann::json());
        require(other == v, what + " was started with " + section + "." + key + " = " + v.dump() +
                                ", now " + other.dump() + " (resume with the same settings)");
      }
    } else {
      require(b[section] == value, what + " was started with " + section + " = " + value.dump() +
                                       ", now " + b[section].dump() +
                                       " (resume with the same settings)");
    }
  }
}

std::unique_ptr<RunFolderLock> open_run_folder(const std::string& dir, const nlohmann::json& saved,
                                               const Tokenizer& tokenizer) {
  auto lock = std::make_unique<RunFolderLock>(dir);
  write_file_atomic(dir + "/config.json", saved.dump(2) + "\n");
  write_file_atomic(dir + "/tokenizer.json", tokenizer.to_json().dump() + "\n");
  return lock;
}

}  // namespace tinylm::finetune
