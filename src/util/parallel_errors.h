// Exceptions and OpenMP: an exception may not leave a parallel region (the program would
// call std::terminate, with no message and no checkpoint). Work inside a region that can
// throw (it allocates, or checks its input) runs through ParallelErrors::run, which keeps
// the first exception; rethrow() after the region throws it on the calling thread.
//   ParallelErrors errors;
//   #pragma omp parallel for
//   for (int64_t i = 0; i < n; ++i) errors.run([&] { work(i); });
//   errors.rethrow();
// Only for loop bodies with no worksharing inside: a thread that stops early must not
// leave the others waiting at a barrier.
#pragma once
#include <exception>

namespace tinylm {

class ParallelErrors {
 public:
  template <class F>
  void run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
#pragma omp critical(tinylm_parallel_errors)
      {
        if (!first_) first_ = std::current_exception();
      }
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::exception_ptr first_;
};

}  // namespace tinylm
