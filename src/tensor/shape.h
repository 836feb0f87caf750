// Shape: the sizes of a tensor's dimensions, held inline (at most kMaxDims, no heap).
// Copying a Tensor, returning one, or asking a buffer for a shape it already has never
// allocates, which is what lets training and decoding steps run without allocating (the
// memory plan, docs/design.md). It reads like the std::vector<int64_t> it replaces.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace tinylm {

class Shape {
 public:
  // Tensors use at most 4; files (safetensors) may name up to 8.
  static constexpr size_t kMaxDims = 8;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(const std::vector<int64_t>& dims);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t& back() { return dims_[size_ - 1]; }
  int64_t back() const { return dims_[size_ - 1]; }
  int64_t* begin() { return dims_; }
  int64_t* end() { return dims_ + size_; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + size_; }
  // Throws InputError past kMaxDims.
  void push_back(int64_t dim);
  std::vector<int64_t> to_vector() const { return {begin(), end()}; }

  friend bool operator==(const Shape& a, const Shape& b);
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  int64_t dims_[kMaxDims] = {};
  size_t size_ = 0;
};

}  // namespace tinylm
