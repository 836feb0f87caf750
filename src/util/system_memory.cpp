#include "util/system_memory.h"

#include <unistd.h>

#include <cstdio>

#include "util/error.h"

namespace tinylm {

int64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return -1;
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page);
}

void require_fits_in_memory(int64_t bytes, const std::string& what) {
  const int64_t have = physical_memory_bytes();
  if (have < 0 || bytes <= have) return;
  char buf[160];
  std::snprintf(buf, sizeof buf, " needs %.1f GiB of memory but this machine has %.1f GiB",
                static_cast<double>(bytes) / (1 << 30), static_cast<double>(have) / (1 << 30));
  throw InputError(what + buf);
}

}  // namespace tinylm
