// Errors with the exit code the command line reports for them.
//   InputError: bad usage or bad input (malformed config, corrupt file, ...) -> exit 2
//   std::runtime_error and everything else: a runtime failure -> exit 1
#pragma once
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tinylm {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws InputError(message) unless cond holds.
inline void require(bool cond, const std::string& message) {
  if (!cond) throw InputError(message);
}
inline void require(bool cond, const char* message) {
  if (!cond) throw InputError(message);
}
// For checks that run every step: the message is built only when cond fails, so a
// passing check allocates nothing (the memory plan).
//   require(n <= cap, [&] { return "too long: " + std::to_string(n); });
template <class MakeMessage, class = std::enable_if_t<std::is_invocable_v<MakeMessage>>>
inline void require(bool cond, MakeMessage&& message) {
  if (!cond) throw InputError(message());
}

}  // namespace tinylm
