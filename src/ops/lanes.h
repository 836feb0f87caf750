// 8 float lanes (one AVX2 register, half of an AVX-512 one) through GCC's vector
// extension, for the kernels that sum in a fixed order (ops/linear_rows.cpp,
// ops/attention_one_query.cpp): the arithmetic is the same on any instruction set, so a
// result does not depend on the machine's vector width.
#pragma once
#include <cstdint>
#include <cstring>

// The helpers pass 8-lane vectors by value; they are inline and internal to the kernels,
// so the ABI note GCC gives for such functions on builds without AVX (the sanitizer build)
// does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tinylm::ops::lanes {

typedef float Lanes __attribute__((vector_size(32)));
inline constexpr int64_t kLanes = 8;

inline Lanes load(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline Lanes load(const float* p, int64_t n) {  // the first n lanes, the rest zero
  Lanes v = {};
  std::memcpy(&v, p, static_cast<size_t>(n) * sizeof(float));
  return v;
}

inline void store(float* p, const Lanes& v) {
  std::memcpy(p, &v, sizeof v);
}

inline void store(float* p, const Lanes& v, int64_t n) {  // the first n lanes
  std::memcpy(p, &v, static_cast<size_t>(n) * sizeof(float));
}

inline Lanes broadcast(float s) {
  return Lanes{s, s, s, s, s, s, s, s};
}

inline float sum_lanes(const Lanes& v) {  // a fixed tree
  return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

// Keeps v in a register from here on. GCC otherwise may fold a vector that several
// products use into each of them as a memory operand, re-reading it every time (which
// makes a kernel load-bound). Values are unchanged.
inline void in_register(Lanes& v) {
#if defined(__AVX__)
  asm("" : "+x"(v));
#else
  (void)v;
#endif
}

}  // namespace tinylm::ops::lanes
