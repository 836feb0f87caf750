#pragma once
// A value read from bytes at any alignment, in the host's byte order (little-endian on
// every host tinylm builds for: the order of safetensors, GGUF and TensorFlow bundles).

#include <cstring>

namespace tinylm {

template <typename T>
T load_unaligned(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace tinylm
