// The errors of a chat template. Both are InputError (exit 2): the template or what it was
// given is at fault, never tinylm's state.
//   TemplateError: the template cannot be read (a syntax error, a construct tinylm does
//     not support: refused when the template is loaded, naming the construct and line),
//     or rendering it failed (an operation on a value it does not apply to).
//   RaisedException: the template itself refused the conversation with
//     raise_exception(message); message() is the template's own words.
#pragma once
#include <string>

#include "util/error.h"

namespace tinylm::jinja {

struct TemplateError : InputError {
  using InputError::InputError;
};

class RaisedException : public TemplateError {
 public:
  explicit RaisedException(const std::string& message)
      : TemplateError("the chat template refused the conversation: " + message),
        message_(message) {}
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

// Throws TemplateError(message): the one way src/jinja reports a failure.
[[noreturn]] inline void fail(const std::string& message) {
  throw TemplateError(message);
}

}  // namespace tinylm::jinja
