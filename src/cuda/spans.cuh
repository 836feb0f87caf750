// Multi-tensor launches (*.cu only): one grid over many tensors ("spans"), each span
// owning the blocks [first_block, first_block + its blocks) of the grid, its descriptor
// in a device array sorted by first_block (the first at 0). A block finds its span by
// binary search: a model's ~100 tensors take 7 steps, against a launch per tensor.
//   const Span& s = span_of_block(spans, count);   // Span: any struct with first_block
#pragma once
#include <cuda_runtime.h>

namespace tinylm::cuda {

template <typename Span>
__device__ inline const Span& span_of_block(const Span* spans, int count) {
  int lo = 0, hi = count - 1;  // the last span whose first block is at or before this one
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (spans[mid].first_block <= blockIdx.x)
      lo = mid;
    else
      hi = mid - 1;
  }
  return spans[lo];
}

}  // namespace tinylm::cuda
