#include "tensor/tensor.h"

#include <algorithm>
#include <cstring>

#include "util/error.h"

namespace tinylm {

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw InputError("negative dimension in shape " + shape_str(shape));
    n *= d;
  }
  return n;
}

Tensor Tensor::empty(const Shape& shape) {
  if (shape.size() > 4) throw InputError("tensors have at most 4 dimensions, got " + shape_str(shape));
  Tensor t;
  t.shape_ = shape;
  t.numel_ = shape_numel(shape);
  t.storage_ = std::make_shared_for_overwrite<float[]>(std::max<int64_t>(t.numel_, 1));
  return t;
}

Tensor Tensor::zeros(const Shape& shape) { return full(shape, 0.0f); }

Tensor Tensor::full(const Shape& shape, float value) {
  Tensor t = empty(shape);
  t.fill(value);
  return t;
}

Tensor Tensor::from(const Shape& shape, std::vector<float> values) {
  Tensor t = empty(shape);
  if (static_cast<int64_t>(values.size()) != t.numel_)
    throw InputError("Tensor::from: " + std::to_string(values.size()) + " values for shape " +
                     shape_str(shape));
  std::copy(values.begin(), values.end(), t.data());
  return t;
}

int64_t Tensor::dim(int i) const {
  const int n = ndim();
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw InputError("dim " + std::to_string(i) + " of shape " + shape_str(shape_));
  return shape_[i];
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_);
  if (numel_) std::memcpy(t.data(), data(), sizeof(float) * numel_);
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) throw InputError("reshape: more than one -1 in " + shape_str(shape));
      infer = static_cast<int>(i);
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0 && known > 0) shape[infer] = numel_ / known;
  if (shape_numel(shape) != numel_ || shape.size() > 4)
    throw InputError("cannot reshape " + shape_str(shape_) + " to " + shape_str(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

void Tensor::fill(float value) { std::fill(data(), data() + numel_, value); }

void Tensor::ensure_shape(const Shape& shape) {
  if (storage_ && shape == shape_) return;
  *this = empty(shape);
}

void Tensor::copy_from(const Tensor& other) {
  if (other.numel_ != numel_)
    throw InputError("copy_from: " + shape_str(other.shape_) + " into " + shape_str(shape_));
  if (numel_) std::memcpy(data(), other.data(), sizeof(float) * numel_);
}

void check_shape(const Tensor& t, const Shape& expected, std::string_view what) {
  if (t.shape() != expected)
    throw InputError(std::string(what) + ": expected shape " + shape_str(expected) + ", got " +
                     shape_str(t.shape()));
}

}  // namespace tinylm
