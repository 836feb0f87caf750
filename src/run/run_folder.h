// Guarding a run folder: tinylm writes only into a folder it made, and one run at a time.
//
//   RUN/.tinylm-run   written when tinylm creates a run folder (or takes an empty one);
//                     also the lock file: a run holds an exclusive flock on it while it
//                     writes, so a second run (or a --resume while it goes on) is refused.
//
// A folder that exists is a run folder if it holds .tinylm-run, or (runs from before the
// marker) a tinylm checkpoint; an empty folder may become one. Anything else (a user's
// project, a Hugging Face model folder, ".") is refused before anything is touched.
//
// plan_run_folder is the one policy of every task (train, classify, instruct), checked
// before anything is written:
//   a new run     the folder is missing, empty, or a run folder of the same task that holds
//                 no checkpoint (a run that stopped before its first one)
//   --resume      the folder is a run of the same task with a readable checkpoint; the run
//                 continues from the newest one (last.safetensors or best.safetensors)
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace tinylm {

inline constexpr const char* kRunMarker = ".tinylm-run";

struct RunFolderState {
  bool exists = false;                      // the folder exists (and is a run folder or empty)
  bool is_run = false;                      // it is a tinylm run folder
  bool has_last = false, has_best = false;  // last.safetensors / best.safetensors
};

// Looks at dir without changing anything. InputError when dir is not a folder, or is a
// non-empty folder that tinylm did not create ("is not a tinylm <noun> folder").
RunFolderState inspect_run_folder(const std::string& dir, const std::string& noun = "run");

// Holds the exclusive lock on a run folder for its lifetime; creates the folder and its
// marker when missing. InputError naming the folder when another process holds the lock.
class RunFolderLock {
 public:
  explicit RunFolderLock(const std::string& dir);
  ~RunFolderLock();
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;

 private:
  int fd_ = -1;
};

// What a run may write into, decided once before step 1.
struct RunFolderPlan {
  std::string dir;
  std::string resume_from;              // the checkpoint to continue; "" for a new run
  std::unique_ptr<RunFolderLock> lock;  // held from the check on when the folder is a run
};

// The one recogniser of run folders: the kind of run dir's config.json describes, "train"
// (its "kind"; a train run from before "kind": "model" and "train" sections, no
// "finetune"), or a fine-tuning run's task, "classify" or "instruct" (its "task" beside a
// "finetune" section); "" when dir has no readable config.json of a run.
std::string run_config_kind(const std::string& dir);

// The task of the `tinylm finetune` run in `dir` ("classify" / "instruct"), or "" when
// `dir` is not one: run_config_kind unless "train".
std::string finetune_task_of(const std::string& dir);

// The kind of run a folder holds: run_config_kind; else "train" when it holds a config.json
// or a tinylm checkpoint, "" when it holds neither yet.
std::string run_kind_of(const std::string& dir);

// `kind` is the task ("train", "classify", "instruct"). InputError (nothing touched) for
// a folder that is not a run folder of that task, a new run into a folder that holds a
// checkpoint, a --resume without a readable checkpoint, a folder in use by another run.
RunFolderPlan plan_run_folder(const std::string& dir, const std::string& kind, bool resume);

}  // namespace tinylm
