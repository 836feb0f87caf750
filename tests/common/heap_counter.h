// Counts the bytes held through C++ operator new and its calls (every Tensor's storage,
// std::vector, std::string ...), to compare memory estimates with what a model really allocates.
// This header DEFINES replacement global operator new/delete (malloc plus two relaxed
// atomic updates per call), as the C++ standard allows a program to do once: include it
// in exactly one .cpp file of a program (tests/report/measured_test.cpp,
// tests/train/memory_plan_test.cpp and bench/info_check.cpp do). It lives with the tests,
// outside every library, so no other program gets the counting allocator.
// Sizes are malloc_usable_size(), so a few bytes of rounding per allocation are included.
#pragma once
#include <dlfcn.h>
#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string_view>

namespace tinylm::testing {

namespace heap_detail {

inline std::atomic<int64_t> live{0};
inline std::atomic<int64_t> peak{0};
inline std::atomic<int64_t> allocations{0};

// While split_math_libraries is set, each allocation's caller is looked up (dladdr, slow:
// for tests) and those made inside oneDNN or OpenBLAS are also counted apart. (oneDNN's
// sgemm allocates a small object on every call; tinylm cannot change that.)
inline std::atomic<bool> split_math_libraries{false};
inline std::atomic<int64_t> math_library_allocations{0};

inline void note_caller(void* caller) {
  if (!split_math_libraries.load(std::memory_order_relaxed)) return;
  Dl_info info;
  if (!dladdr(caller, &info) || !info.dli_fname) return;
  const std::string_view file = info.dli_fname;
  if (file.find("libdnnl") != file.npos || file.find("libopenblas") != file.npos)
    math_library_allocations.fetch_add(1, std::memory_order_relaxed);
}

inline void* counted(void* p) {
  if (!p) return p;
  allocations.fetch_add(1, std::memory_order_relaxed);
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
// Calls of operator new so far (a step that allocates nothing leaves it unchanged).
inline int64_t heap_allocations() {
  return heap_detail::allocations.load();
}
// Of those, the calls made inside oneDNN or OpenBLAS while split_math_libraries(true).
inline int64_t heap_allocations_by_math_libraries() {
  return heap_detail::math_library_allocations.load();
}
inline void split_math_libraries(bool on) {
  heap_detail::split_math_libraries.store(on);
}
inline void reset_heap_peak() {
  heap_detail::peak.store(heap_detail::live.load());
}

}  // namespace tinylm::testing

// The replacements (not inline: the standard forbids it; hence "one .cpp per program").
namespace tinylm_heap = tinylm::testing::heap_detail;
void* operator new(std::size_t n) {
  tinylm_heap::note_caller(__builtin_return_address(0));
  return tinylm_heap::allocate(n);
}
void* operator new[](std::size_t n) {
  tinylm_heap::note_caller(__builtin_return_address(0));
  return tinylm_heap::allocate(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  tinylm_heap::note_caller(__builtin_return_address(0));
  return tinylm_heap::counted(std::malloc(n ? n : 1));
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  tinylm_heap::note_caller(__builtin_return_address(0));
  return tinylm_heap::counted(std::malloc(n ? n : 1));
}
void* operator new(std::size_t n, std::align_val_t al) {
  tinylm_heap::note_caller(__builtin_return_address(0));
  return tinylm_heap::allocate_aligned(n, al);
}
void* operator new[](std::size_t n, std::align_val_t al) {
  tinylm_heap::note_caller(__builtin_return_address(0));
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
