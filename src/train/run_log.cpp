#include "train/run_log.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// On resume: keeps the lines of steps up to resume_step. Returns path. A log that is a
// symbolic link is refused: its lines are not the run's, and tinylm never writes
// through a link (a new log replaces a link instead: AppendFile).
const std::string& keep_lines_up_to(const std::string& path, int64_t resume_step) {
  require(resume_step < 0 || !is_symlink(path),
          path +
              " is a symbolic link: tinylm does not write through links (remove it, or "
              "train into another --out)");
  if (resume_step >= 0 && file_exists(path)) {
    std::istringstream in(read_file(path));
    std::string kept, line;
    while (std::getline(in, line)) {
      try {
        if (parse_json_line(line, path, 0).value("step", int64_t{0}) <= resume_step)
          kept += line + "\n";
      } catch (const std::exception&) {
        // a torn last line from a killed run, or a line that is not ours: drop it
      }
    }
    write_file_atomic(path, kept);
  }
  return path;
}

}  // namespace

RunLog::RunLog(const std::string& path, int64_t resume_step)
    : out_(keep_lines_up_to(path, resume_step), resume_step < 0) {}

void RunLog::write(const nlohmann::json& j) {
  out_.append(j.dump() + "\n");
}

}  // namespace tinylm
