// Random numbers by position: element i of the stream of `key` is SplitMix64's i-th
// output from the state `key`, computed on its own. Any element, in any order, on any
// device, gives the same number: dropout masks drawn by a GPU's threads are the CPU's.
//   const uint64_t key = rng.next_u64();          // one draw of the sequential generator
//   float u = counter_uniform(key, i);            // uniform in [0, 1), 24 random bits
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define TINYLM_HOST_DEVICE __host__ __device__
#else
#define TINYLM_HOST_DEVICE
#endif

namespace tinylm {

constexpr uint64_t kCounterStep = 0x9E3779B97F4A7C15ull;  // SplitMix64's increment

TINYLM_HOST_DEVICE inline uint64_t counter_u64(uint64_t key, uint64_t i) {
  uint64_t z = key + (i + 1) * kCounterStep;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The key whose stream starts `offset` elements into key's stream:
//   counter_u64(counter_skip(key, offset), i) == counter_u64(key, offset + i)
TINYLM_HOST_DEVICE inline uint64_t counter_skip(uint64_t key, uint64_t offset) {
  return key + offset * kCounterStep;
}

// As Rng::uniform: the top 24 bits, exactly representable as a float.
TINYLM_HOST_DEVICE inline float counter_uniform(uint64_t key, uint64_t i) {
  return static_cast<float>(counter_u64(key, i) >> 40) * (1.0f / 16777216.0f);
}

}  // namespace tinylm
