// The message of the InputError a call throws, for tests that check error messages.
#pragma once
#include <string>

#include "util/error.h"

namespace tinylm::testing {

// The InputError message of f(), or "" if it does not throw one.
template <class F>
std::string input_error(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tinylm::testing
