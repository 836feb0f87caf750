// The process's resident memory (Linux), to check memory estimates against the OS view.
//   current_rss_bytes(): resident now (/proc/self/statm)
//   peak_rss_bytes():    high-water mark (VmHWM in /proc/self/status; getrusage's
//                        ru_maxrss where /proc is not readable)
//   reset_peak_rss():    high-water mark := resident now (writes 5 to
//                        /proc/self/clear_refs); false if the kernel refuses
// prepare_rss_measurement() makes RSS follow the live heap: glibc serves every block of
// 64 KiB or more with its own mmap (returned to the OS on free) and trims its free
// memory, so memory freed by earlier work does not hide new allocations.
#pragma once
#include <cstdint>

namespace tinylm::report {

int64_t current_rss_bytes();
int64_t peak_rss_bytes();
int64_t ru_maxrss_bytes();
bool reset_peak_rss();
void prepare_rss_measurement();

}  // namespace tinylm::report
