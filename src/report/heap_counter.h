// Counts the bytes held through C++ operator new (every Tensor's storage, std::vector,
// std::string ...), to compare memory estimates with what a model really allocates.
// This header DEFINES replacement global operator new/delete (malloc plus two relaxed
// atomic updates per call), as the C++ standard allows a program to do once: include it
// in exactly one .cpp file of a program (tests/report/measured_test.cpp and
// bench/info_check.cpp do). It is deliberately not part of the tinylm_report library, so
// no other program gets the counting allocator.
// Sizes are malloc_usable_size(), so a few bytes of rounding per allocation are included.
#pragma once
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace tinylm::report {

namespace heap_detail {

inline std::atomic<int64_t> live{0};
inline std::atomic<int64_t> peak{0};

inline void* counted(void* p) {
  if (!p) return p;
  const auto size = static_cast<int64_t>(malloc_usable_size(p));
  const int64_t now = live.fetch_add(size, std::memory_order_relaxed) + size;
  int64_t high = peak.load(std::memory_order_relaxed);
  while (now > high && !peak.compare_exchange_weak(high, now, std::memory_order_relaxed)) {
  }
  return p;
}

inline void release(void* p) {
  if (!p) return;
  live.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}

inline void* allocate(std::size_t n) {
  void* p = counted(std::malloc(n ? n : 1));
  if (!p) throw std::bad_alloc();
  return p;
}

inline void* allocate_aligned(std::size_t n, std::align_val_t al) {
  const auto a = static_cast<std::size_t>(al);
  void* p = counted(std::aligned_alloc(a, (n + a - 1) / a * a));
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace heap_detail

// Bytes allocated and not yet freed.
inline int64_t heap_live_bytes() {
  return heap_detail::live.load();
}
// The most live bytes since the last reset_heap_peak().
inline int64_t heap_peak_bytes() {
  return heap_detail::peak.load();
}
inline void reset_heap_peak() {
  heap_detail::peak.store(heap_detail::live.load());
}

}  // namespace tinylm::report

// The replacements (not inline: the standard forbids it; hence "one .cpp per program").
namespace tinylm_heap = tinylm::report::heap_detail;
void* operator new(std::size_t n) {
  return tinylm_heap::allocate(n);
}
void* operator new[](std::size_t n) {
  return tinylm_heap::allocate(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return tinylm_heap::counted(std::malloc(n ? n : 1));
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return tinylm_heap::counted(std::malloc(n ? n : 1));
}
void* operator new(std::size_t n, std::align_val_t al) {
  return tinylm_heap::allocate_aligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al) {
  return tinylm_heap::allocate_aligned(n, al);
}
void operator delete(void* p) noexcept {
  tinylm_heap::release(p);
}
void operator delete[](void* p) noexcept {
  tinylm_heap::release(p);
}
void operator delete(void* p, std::size_t) noexcept {
  tinylm_heap::release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  tinylm_heap::release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  tinylm_heap::release(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  tinylm_heap::release(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  tinylm_heap::release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  tinylm_heap::release(p);
}
