#include "tensor/memory_reuse.h"

#include <malloc.h>

#include <climits>

namespace tinylm {

bool reuse_freed_memory() {
  // No block gets its own mapping (M_MMAP_MAX 0): large blocks come from the heap, where
  // freed ones are found again by the next allocation of that size. The heap's free top
  // is not trimmed back to the kernel below 2 GiB (the largest value mallopt takes).
  const bool no_mmap = mallopt(M_MMAP_MAX, 0) == 1;
  const bool no_trim = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
  return no_mmap && no_trim;
}

}  // namespace tinylm
