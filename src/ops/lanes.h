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

// acc + a * b, rounded once (a fused multiply-add) where the build has FMA, twice where
// not. Explicit, because GCC decides by itself which `acc += a * b` it fuses: for
// AMD's Zen it leaves a loop's single chain of them unfused (tuning: FMA chains), which
// would round a kernel's one-accumulator path differently from its many-accumulator one.
inline Lanes multiply_add(const Lanes& acc, const Lanes& a, const Lanes& b) {
#if defined(__FMA__)
  return __builtin_ia32_vfmaddps256(a, b, acc);
#else
  return acc + a * b;
#endif
}

// A fixed tree: ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)), as shuffles of halves
// (which stay in registers; taking the lanes one by one goes through memory).
inline float sum_lanes(const Lanes& v) {
  typedef float Half __attribute__((vector_size(16)));
  const Half s =
      __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
  const Half t = s + __builtin_shufflevector(s, s, 2, 3, 0, 1);  // (s0 + s2, s1 + s3, ...)
  return t[0] + t[1];
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
