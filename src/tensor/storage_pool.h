// A cache of large float buffers for Tensor storage. A training step allocates and frees
// the same large tensors (activations, gradients) every step; taken from the system each
// time, they come back as fresh pages that the kernel must zero and map on first touch
// (page faults were about 15 % of a 10.65M-parameter step, docs/performance.md). Buffers
// of at least kMinPooledBytes are kept when released, up to kMaxCachedBytes in all, and
// handed out again for a request of the same size. Thread-safe; 64-byte aligned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace tinylm {

inline constexpr size_t kMinPooledBytes = size_t{256} << 10;  // 256 KiB
inline constexpr size_t kMaxCachedBytes = size_t{4} << 30;    // 4 GiB

// Uninitialised storage for count floats (count >= 1).
std::shared_ptr<float[]> pooled_floats(int64_t count);

// Bytes currently cached (released and not yet reused), for tests.
size_t pooled_cached_bytes();

}  // namespace tinylm
