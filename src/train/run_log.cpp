#include "train/run_log.h"

#include <sstream>

#include "util/error.h"
#include "util/files.h"

namespace tinylm {

RunLog::RunLog(const std::string& path, int64_t resume_step) : path_(path) {
  if (resume_step >= 0 && file_exists(path)) {
    std::istringstream in(read_file(path));
    std::string kept, line;
    while (std::getline(in, line)) {
      try {
        if (nlohmann::json::parse(line).value("step", int64_t{0}) <= resume_step)
          kept += line + "\n";
      } catch (const nlohmann::json::exception&) {
        // a torn last line from a killed run: drop it
      }
    }
    write_file_atomic(path, kept);
  }
  out_.open(path, resume_step >= 0 ? std::ios::app : std::ios::trunc);
  require(out_.good(), "cannot write " + path);
}

void RunLog::write(const nlohmann::json& j) {
  out_ << j.dump() << "\n";
  out_.flush();
}

}  // namespace tinylm
