// RUN/log.jsonl: one JSON object per line (logged steps, evaluations), appended and
// flushed as training goes, shared by `tinylm train` and `tinylm finetune`.
// On resume, the lines past the resumed step are dropped first (they belong to work the
// checkpoint does not have), and a torn last line from a killed run is dropped too.
// A failed append (a full disk) is an error, never a silently lost line. The log is never
// written through a symbolic link: a new log replaces a link, a resumed one refuses it.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "util/files.h"

namespace tinylm {

class RunLog {
 public:
  // resume_step < 0: a new log (truncates the file); otherwise keep lines whose "step"
  // is at most resume_step and append after them.
  RunLog(const std::string& path, int64_t resume_step);
  void write(const nlohmann::json& j);

 private:
  AppendFile out_;
};

}  // namespace tinylm
