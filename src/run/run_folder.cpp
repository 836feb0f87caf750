#include "run/run_folder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "dist/communicator.h"
#include "io/safetensors.h"
#include "run/checkpoint.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

namespace fs = std::filesystem;

// A run folder written before the marker existed: it holds a tinylm checkpoint.
bool holds_tinylm_checkpoint(const std::string& dir) {
  for (const char* name : {"/last.safetensors", "/best.safetensors"}) {
    if (!file_exists(dir + name)) continue;
    try {
      if (load_safetensors(dir + name).metadata.count("tinylm.format")) return true;
    } catch (const InputError&) {
      // not a readable safetensors file: not evidence of a run
    }
  }
  return false;
}

}  // namespace

RunFolderState inspect_run_folder(const std::string& dir, const std::string& noun) {
  require(!dir.empty(), "--out: empty folder name");
  RunFolderState s;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return s;
  require(fs::is_directory(st), "--out " + dir + " is not a folder");
  s.exists = true;
  s.has_last = file_exists(dir + "/last.safetensors");
  s.has_best = file_exists(dir + "/best.safetensors");
  if (file_exists(dir + "/" + kRunMarker) || holds_tinylm_checkpoint(dir)) {
    s.is_run = true;
    return s;
  }
  const bool empty = fs::is_empty(dir, ec);
  require(!ec, "--out " + dir + ": cannot read the folder: " + ec.message());
  require(empty, "--out " + dir + " is not a tinylm " + noun + " folder (it has files, but no " +
                     kRunMarker +
                     "): tinylm writes only into a folder it created or an empty one, so "
                     "nothing was touched; choose a new or empty --out");
  return s;
}

std::string run_config_kind(const std::string& dir) {
  const std::string path = dir + "/config.json";
  if (!file_exists(path)) return "";
  nlohmann::json j;
  try {
    j = read_json_file(path);
  } catch (const InputError&) {
    return "";
  }
  if (!j.is_object()) return "";
  if (j.contains("kind")) return j["kind"] == "train" ? "train" : "";
  if (j.contains("task") && j["task"].is_string() && j.contains("finetune"))
    return j["task"].get<std::string>();
  // A train run from before "kind": its sections.
  return j.contains("model") && j.contains("train") && !j.contains("finetune") ? "train" : "";
}

std::string finetune_task_of(const std::string& dir) {
  const std::string kind = run_config_kind(dir);
  return kind == "train" ? "" : kind;
}

std::string run_kind_of(const std::string& dir) {
  if (const std::string kind = run_config_kind(dir); !kind.empty()) return kind;
  return file_exists(dir + "/config.json") || holds_tinylm_checkpoint(dir) ? "train" : "";
}

RunFolderPlan plan_run_folder(const std::string& dir, const std::string& kind, bool resume) {
  const RunFolderState folder = inspect_run_folder(dir, kind == "train" ? "run" : "finetune run");
  RunFolderPlan plan;
  plan.dir = dir;
  if (folder.is_run) {
    const std::string found = run_kind_of(dir);
    require(found.empty() || found == kind,
            "--out " + dir + " holds a " +
                (found == "train" ? "'train'" : "finetune '" + found + "'") + " run, not a" +
                (kind == "train" ? " 'train'" : " finetune '" + kind + "'") +
                " run: choose another --out");
    // Before its checkpoints are read; in a data-parallel run, by rank 0 for all ranks.
    if (dist::world().rank() == 0) plan.lock = std::make_unique<RunFolderLock>(dir);
  }
  const SavedCheckpoints saved = find_checkpoints(dir);
  if (!resume) {
    require(!saved.any(), dir + " already holds " + saved.describe() +
                              ": a folder that already holds a checkpoint is continued with "
                              "--resume; or choose another --out");
    return plan;
  }
  require(!saved.newest().empty(),
          saved.any() ? "--resume: " + dir + " holds " + saved.describe() + ", and none can be read"
                      : "--resume: " + dir + " holds no checkpoint yet (" +
                            (folder.exists ? "the run stopped before its first one"
                                           : "the folder does not exist") +
                            "); start the run again without --resume");
  // A damaged checkpoint is not skipped over: resuming from the other one would write
  // over it and over the log of the steps it held.
  for (const auto& [path, error] :
       {std::pair{saved.last, saved.last_error}, std::pair{saved.best, saved.best_error}})
    require(path.empty() || error.empty(), "--resume: " + path + " cannot be read (" + error +
                                               "); it is left as it is: move it out of " + dir +
                                               " to resume from the other checkpoint");
  plan.resume_from = saved.newest();
  return plan;
}

RunFolderLock::RunFolderLock(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  require(!ec, "--out: cannot create " + dir + ": " + ec.message());
  const std::string marker = dir + "/" + kRunMarker;
  fd_ = open_for_writing(marker, O_RDWR);  // never through a link
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw InputError("--out " + dir + " is in use by another tinylm run (it holds the lock on " +
                       marker + "); wait for it to finish or choose another --out");
    throw InputError("--out: cannot lock " + marker + ": " + std::strerror(err));
  }
  if (::lseek(fd_, 0, SEEK_END) == 0) {
    constexpr std::string_view text = "a tinylm run folder (this file is also its lock)\n";
    if (::write(fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
      throw std::runtime_error("cannot write " + marker + ": " + std::strerror(errno));
  }
}

RunFolderLock::~RunFolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace tinylm
