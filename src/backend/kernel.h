// Kernel<R(Args...)>: one entry of a backend's table, a plain function pointer that
// reports a clear error instead of crashing when the backend does not have that kernel.
//   Kernel<void(int)> k = some_function;   // there
//   Kernel<void(int)> k{"name"};           // not there: k(1) throws InputError
//                                           //   "<name>: this device has no such kernel yet"
//   if (k) ...                             // whether it is there
#pragma once

namespace tinylm {

[[noreturn]] void throw_missing_kernel(const char* name);

template <typename Signature>
class Kernel;

template <typename R, typename... Args>
class Kernel<R(Args...)> {
 public:
  using Fn = R (*)(Args...);
  Kernel(const char* missing_name) : name_(missing_name) {}  // NOLINT: table entries
  Kernel(Fn fn) : fn_(fn) {}                                 // NOLINT: read as assignments

  R operator()(Args... args) const {
    if (!fn_) throw_missing_kernel(name_);
    return fn_(args...);
  }
  explicit operator bool() const { return fn_ != nullptr; }

 private:
  Fn fn_ = nullptr;
  const char* name_ = "";
};

}  // namespace tinylm
