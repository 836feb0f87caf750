// A small deterministic random number generator (xoshiro256**, seeded by splitmix64).
// Its whole state is four integers, so checkpoints can save and restore it exactly.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>

namespace tinylm {

class Rng {
 public:
  explicit Rng(uint64_t seed = 1337) { seed_with(seed); }

  void seed_with(uint64_t seed) {
    for (auto& word : s_) {
      seed += 0x9E3779B97F4A7C15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      word = z ^ (z >> 31);
    }
  }

  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 24 random bits (exactly representable as float).
  float uniform() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }

  // Uniform integer in [0, n).
  uint64_t below(uint64_t n) { return next_u64() % n; }

  // Standard normal (Box-Muller, one value per call).
  float normal() {
    double u1 = (static_cast<double>(next_u64() >> 11) + 1.0) * (1.0 / 9007199254740992.0);
    double u2 = static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0);
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }

  std::array<uint64_t, 4> state() const { return s_; }
  void set_state(const std::array<uint64_t, 4>& s) { s_ = s; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_{};
};

}  // namespace tinylm
