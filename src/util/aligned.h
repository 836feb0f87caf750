// Host memory on 64-byte boundaries: a cache line, and one AVX-512 register. glibc's
// malloc gives 16 bytes (a large block starts 16 bytes past a page), so a 32-byte vector
// load from such an array straddles two cache lines every other time; the kernels'
// own loads (decoding's few-row products above all) measured up to 20 % slower that way.
#pragma once
#include <cstddef>
#include <new>
#include <vector>

namespace tinylm {

inline constexpr std::size_t kHostAlignment = 64;

// ::operator new with the alignment (so heap accounting that replaces it still sees the
// bytes), the size rounded up to whole lines.
inline void* aligned_host_alloc(std::size_t bytes) {
  const std::size_t lines = (bytes + kHostAlignment - 1) / kHostAlignment;
  return ::operator new ((lines ? lines : 1) * kHostAlignment, std::align_val_t{kHostAlignment});
}
inline void aligned_host_free(void* p) noexcept {
  ::operator delete (p, std::align_val_t{kHostAlignment});
}

// For std::vector<T, AlignedAllocator<T>>: element 0 on a 64-byte boundary.
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(aligned_host_alloc(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { aligned_host_free(p); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace tinylm
