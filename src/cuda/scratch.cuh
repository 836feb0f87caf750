// Device scratch memory for the kernels that need room beside their outputs (attention's
// [N, Tq, Tk] weights, widened bf16 weights, embedding's row lists, the clipping sum, the
// descriptors of multi-tensor launches):
// one buffer per slot, grown when a call needs more and kept for the next call (never
// freed: it lives as long as the program). Used from one host thread at a time, on the
// default stream, like the rest of src/cuda.
//   scratch<float>(ScratchSlot::kWeights, n)   at least n floats of slot kWeights
// Within one call, two arrays that are alive together take two different slots.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tinylm::cuda {

enum class ScratchSlot : int {
  kWeights = 0,  // attention: scores / weights [N, Tq, Tk]; linear_forward_bf16: W widened
  kGradWeights,  // attention backward: dA, then dS [N, Tq, Tk]; layer norm backward: the
                 // partial sums of dw and db [2, chunks, C]
  kIndex,        // embedding backward: the rows of each id
  kSum,          // clip_grad_norm: the sum of squares (one double)
  kSpans,        // adamw_update_spans, clip_grad_norm: the spans' descriptors
  kRowLoss,      // cross_entropy (the backend's): the rows' losses
  kRowDelta,     // flash attention backward: rowsum(dy * y) [N, Tq]
  kCount
};

void* scratch_bytes(ScratchSlot slot, size_t bytes);

template <typename T>
T* scratch(ScratchSlot slot, int64_t n) {
  return static_cast<T*>(scratch_bytes(slot, sizeof(T) * static_cast<size_t>(n > 0 ? n : 0)));
}

}  // namespace tinylm::cuda
