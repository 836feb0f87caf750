// Keeping freed tensor memory for the next step instead of giving it back to the kernel.
//
// A training step allocates and frees the same large tensors every step (the 10.65M
// model's [B, T, 4C] activations are 100 MB each). glibc serves every block above 32 MB
// (its largest mmap threshold) with its own mmap and unmaps it on free, so each step
// maps fresh pages and the kernel zeroes them: page faults took about 40 % of a 10.65M
// step (docs/performance.md). reuse_freed_memory() makes glibc serve large blocks from
// its heap and keep what is freed there, so the next step's tensors reuse the same,
// already mapped pages. The program entry points (the CLI, the benches) call it once at
// start; the cost is that memory freed during a run is kept by the process until it ends.
#pragma once

namespace tinylm {

// Returns false where the allocator does not accept the setting (a sanitizer's
// allocator, for instance); nothing changes then.
bool reuse_freed_memory();

}  // namespace tinylm
