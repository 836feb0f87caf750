// Size arithmetic that cannot overflow silently: products and sums of int64 sizes
// (parameter counts, bytes, FLOPs) computed from untrusted configs. An overflow is bad
// input: a config that large cannot describe a model this machine could hold.
#pragma once
#include <cstdint>
#include <string>

#include "util/error.h"

namespace tinylm {

// a * b; InputError("<what> is too large (overflows 64-bit arithmetic)") on overflow.
inline int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    throw InputError(what + " is too large (overflows 64-bit arithmetic)");
  return out;
}

inline int64_t checked_add(int64_t a, int64_t b, const std::string& what) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    throw InputError(what + " is too large (overflows 64-bit arithmetic)");
  return out;
}

// The product of all factors, checked.
inline int64_t checked_product(std::initializer_list<int64_t> factors, const std::string& what) {
  int64_t out = 1;
  for (int64_t f : factors) out = checked_mul(out, f, what);
  return out;
}

}  // namespace tinylm
