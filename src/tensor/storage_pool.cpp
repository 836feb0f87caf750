// Tensor storage with a size-keyed cache of released large buffers (see storage_pool.h).
#include "tensor/storage_pool.h"

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace tinylm {
namespace {

struct Pool {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<float*>> free_by_bytes;
  size_t cached_bytes = 0;
};

// Never destroyed: tensors held by static objects may be released after main returns.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

size_t rounded_bytes(int64_t count) {  // aligned_alloc wants a multiple of the alignment
  const size_t bytes = static_cast<size_t>(count) * sizeof(float);
  return (bytes + 63) / 64 * 64;
}

void release(float* ptr, size_t bytes) {
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.cached_bytes + bytes <= kMaxCachedBytes) {
      p.free_by_bytes[bytes].push_back(ptr);
      p.cached_bytes += bytes;
      return;
    }
  }
  std::free(ptr);
}

}  // namespace

std::shared_ptr<float[]> pooled_floats(int64_t count) {
  const size_t bytes = rounded_bytes(count);
  if (bytes < kMinPooledBytes) return std::make_shared_for_overwrite<float[]>(count);
  float* ptr = nullptr;
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = p.free_by_bytes.find(bytes);
    if (it != p.free_by_bytes.end() && !it->second.empty()) {
      ptr = it->second.back();
      it->second.pop_back();
      p.cached_bytes -= bytes;
    }
  }
  if (!ptr) ptr = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!ptr) throw std::bad_alloc();
  return std::shared_ptr<float[]>(ptr, [bytes](float* q) { release(q, bytes); });
}

size_t pooled_cached_bytes() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.cached_bytes;
}

}  // namespace tinylm
