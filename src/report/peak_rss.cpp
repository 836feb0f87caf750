#include "report/peak_rss.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace tinylm::report {

int64_t current_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t total_pages = 0, resident_pages = 0;
  if (!(statm >> total_pages >> resident_pages)) return -1;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

int64_t ru_maxrss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

int64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  int64_t kib = 0;
  while (status >> key) {
    if (key == "VmHWM:" && status >> kib) return kib * 1024;
    std::getline(status, key);
  }
  return ru_maxrss_bytes();
}

bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  if (!clear) return false;
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

void prepare_rss_measurement() {
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);  // also stops glibc raising the threshold later
  malloc_trim(0);
}

}  // namespace tinylm::report
