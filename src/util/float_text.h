// Floats in JSON files a user reads: the shortest decimal that reads back as the same
// float, as a double (0.1f -> 0.1, where the plain conversion shows 0.10000000149011612).
#pragma once
#include <cstdio>
#include <cstdlib>

namespace tinylm {

inline double shortest_decimal(float v) {
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) return std::strtod(buf, nullptr);
  }
  return static_cast<double>(v);
}

}  // namespace tinylm
