// Per-thread work buffers of a parallel region, sized before the region starts, so that
// nothing inside it allocates (an exception, bad_alloc included, may not leave an OpenMP
// region) and a region's threads never share a buffer. The floats live in the call site's
// own thread_local pool, which grows to the largest request and is kept: a kernel called
// again with the same shapes allocates nothing (the memory plan, docs/design.md).
//   thread_local std::vector<float> pool;
//   ThreadScratch scratch(pool, floats_per_thread);
//   #pragma omp parallel
//   { float* mine = scratch.mine(); ... }
#pragma once
#include <omp.h>

#include <cstdint>
#include <vector>

namespace tinylm::ops {

class ThreadScratch {
 public:
  ThreadScratch(std::vector<float>& pool, int64_t floats_per_thread)
      : per_thread_(floats_per_thread) {
    const size_t needed = static_cast<size_t>(floats_per_thread) * omp_get_max_threads();
    if (pool.size() < needed) pool.resize(needed);
    base_ = pool.data();
  }
  // This thread's floats_per_thread floats (thread 0's outside a region).
  float* mine() { return base_ + per_thread_ * omp_get_thread_num(); }

 private:
  int64_t per_thread_;
  float* base_;
};

}  // namespace tinylm::ops
