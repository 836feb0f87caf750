// Errors with the exit code the command line reports for them.
//   InputError: bad usage or bad input (malformed config, corrupt file, ...) -> exit 2
//   std::runtime_error and everything else: a runtime failure -> exit 1
#pragma once
#include <stdexcept>
#include <string>

namespace tinylm {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws InputError(message) unless cond holds.
inline void require(bool cond, const std::string& message) {
  if (!cond) throw InputError(message);
}

}  // namespace tinylm
