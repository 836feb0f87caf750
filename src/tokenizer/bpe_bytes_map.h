// Small open-addressing hash tables for the BPE hot path (std::unordered_map with
// std::string keys allocates per key and hashes byte by byte; these do neither).
//   BytesMap: byte string -> uint32 value, keys copied into one arena.
//   PairMap:  (uint32, uint32) -> uint32 value.
// Both only grow; lookups of absent keys return kAbsent.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

inline constexpr uint32_t kAbsent = 0xFFFFFFFFu;

// A fast 64-bit hash of a short byte string (8 bytes per step, then a final mix).
inline uint64_t bpe_hash_bytes(std::string_view s) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  uint64_t h = 0x243F6A8885A308D3ULL ^ (s.size() * kMul);
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * kMul;
  }
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ULL;
  return h ^ (h >> 32);
}

class BytesMap {
 public:
  explicit BytesMap(size_t expected = 64) { rehash(capacity_for(expected)); }

  uint32_t find(std::string_view key) const {
    const uint64_t h = bpe_hash_bytes(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent) return kAbsent;
      if (s.hash == h && s.len == key.size() &&
          std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)
        return s.value;
    }
  }

  // Inserts key -> value unless key is present; returns false if it was.
  bool insert(std::string_view key, uint32_t value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    const uint64_t h = bpe_hash_bytes(key);
    size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent) break;
      if (s.hash == h && s.len == key.size() &&
          std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)
        return false;
    }
    slots_[i] =
        Slot{h, static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(key.size()), value};
    arena_.append(key);
    ++size_;
    return true;
  }

  size_t size() const { return size_; }
  size_t arena_bytes() const { return arena_.size(); }
  void clear() {
    arena_.clear();
    slots_.assign(16, Slot{});
    mask_ = 15;
    size_ = 0;
  }

 private:
  struct Slot {
    uint64_t hash;
    uint32_t offset, len;
    uint32_t value = kAbsent;
  };
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c * 3 < n * 4 + 4) c *= 2;
    return c;
  }
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.value == kAbsent) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].value != kAbsent) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::string arena_;
  size_t mask_ = 0, size_ = 0;
};

class PairMap {
 public:
  uint32_t find(uint32_t a, uint32_t b) const {
    if (slots_.empty()) return kAbsent;
    const uint64_t key = pack(a, b);
    for (size_t i = mix(key) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent) return kAbsent;
      if (s.key == key) return s.value;
    }
  }
  // Sets (a, b) -> value, keeping the smaller value if the pair is already present.
  void insert_min(uint32_t a, uint32_t b, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 1024 : slots_.size() * 2);
    const uint64_t key = pack(a, b);
    size_t i = mix(key) & mask_;
    for (; slots_[i].value != kAbsent; i = (i + 1) & mask_) {
      if (slots_[i].key == key) {
        if (value < slots_[i].value) slots_[i].value = value;
        return;
      }
    }
    slots_[i] = Slot{key, value};
    ++size_;
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key;
    uint32_t value = kAbsent;
  };
  static uint64_t pack(uint32_t a, uint32_t b) { return (uint64_t{a} << 32) | b; }
  static uint64_t mix(uint64_t k) {
    k ^= k >> 31;
    k *= 0x9E3779B97F4A7C15ULL;
    return k ^ (k >> 29);
  }
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.value == kAbsent) continue;
      size_t i = mix(s.key) & mask_;
      while (slots_[i].value != kAbsent) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_ = std::vector<Slot>(1024);
  size_t mask_ = 1023, size_ = 0;
};

}  // namespace tinylm
