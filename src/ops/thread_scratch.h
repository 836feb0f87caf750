// Per-thread work buffers of a parallel region, allocated before the region starts, so
// that nothing inside it allocates (an exception, bad_alloc included, may not leave an
// OpenMP region) and a region's threads never share a buffer.
//   ThreadScratch scratch(floats_per_thread);
//   #pragma omp parallel
//   { float* mine = scratch.mine(); ... }
#pragma once
#include <omp.h>

#include <cstdint>
#include <vector>

namespace tinylm::ops {

class ThreadScratch {
 public:
  explicit ThreadScratch(int64_t floats_per_thread)
      : per_thread_(floats_per_thread),
        buffer_(static_cast<size_t>(floats_per_thread) * omp_get_max_threads()) {}
  // This thread's floats_per_thread floats (thread 0's outside a region).
  float* mine() { return buffer_.data() + per_thread_ * omp_get_thread_num(); }

 private:
  int64_t per_thread_;
  std::vector<float> buffer_;
};

}  // namespace tinylm::ops
