// Guarding a run folder: tinylm writes only into a folder it made, and one run at a time.
//
//   RUN/.tinylm-run   written when tinylm creates a run folder (or takes an empty one);
//                     also the lock file: a run holds an exclusive flock on it while it
//                     writes, so a second run (or a --resume while it goes on) is refused.
//
// A folder that exists is a run folder if it holds .tinylm-run, or (runs from before the
// marker) a tinylm checkpoint; an empty folder may become one. Anything else (a user's
// project, a Hugging Face model folder, ".") is refused before anything is touched.
#pragma once
#include <cstdint>
#include <string>

namespace tinylm {

inline constexpr const char* kRunMarker = ".tinylm-run";

struct RunFolderState {
  bool exists = false;                      // the folder exists (and is a run folder or empty)
  bool is_run = false;                      // it is a tinylm run folder
  bool has_last = false, has_best = false;  // last.safetensors / best.safetensors
};

// Looks at dir without changing anything. InputError when dir is not a folder, or is a
// non-empty folder that tinylm did not create.
RunFolderState inspect_run_folder(const std::string& dir);

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

}  // namespace tinylm
