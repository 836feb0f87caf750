// The memory of this machine, and the check every large allocation of a model makes
// first: a model that cannot fit is refused with a message instead of std::bad_alloc
// (or the OOM killer) after seconds of allocating.
#pragma once
#include <cstdint>
#include <string>

namespace tinylm {

// Physical memory in bytes (sysconf), or -1 when the system does not say.
int64_t physical_memory_bytes();

// Throws InputError("<what> needs X GiB of memory but this machine has Y GiB") when
// bytes exceeds the physical memory.
void require_fits_in_memory(int64_t bytes, const std::string& what);

}  // namespace tinylm
