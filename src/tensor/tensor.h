// Tensor: a float32, row-major, contiguous array with a shape of up to 4 dimensions.
//
// Copies are shallow (they share storage, like torch.Tensor); clone() copies the data.
// reshaped() returns a view with the same storage. Kernels in ops/ work on raw pointers
// and sizes; Tensor is the container that modules and models pass around.
//
// A tensor lives on a device (tensor/device.h; the CPU unless made elsewhere): data() is
// then a pointer into that device's memory, for that device's kernels (backend/). Only
// CPU tensors may be indexed with [] or filled with a value other than 0; to(), to_vector()
// and copy_from() move numbers between devices.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/device.h"
#include "tensor/shape.h"

namespace tinylm {

std::string shape_str(const Shape& shape);  // "[2, 3, 4]"
int64_t shape_numel(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;
  // Uninitialised contents (fast); use zeros() when they must start at 0.
  static Tensor empty(const Shape& shape, Device device = Device::kCpu);
  static Tensor zeros(const Shape& shape, Device device = Device::kCpu);
  static Tensor full(const Shape& shape, float value);
  static Tensor from(const Shape& shape, std::vector<float> values);

  const Shape& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  // Size of dimension i; negative i counts from the end (dim(-1) is the last).
  int64_t dim(int i) const;
  int64_t numel() const { return numel_; }
  bool defined() const { return storage_ != nullptr; }
  Device device() const { return device_; }

  float* data() { return storage_.get(); }
  const float* data() const { return storage_.get(); }
  float& operator[](int64_t i) { return storage_.get()[i]; }
  float operator[](int64_t i) const { return storage_.get()[i]; }
  std::vector<float> to_vector() const;  // downloads a tensor of another device

  Tensor clone() const;
  // This tensor if it is on `device`, else a copy there.
  Tensor to(Device device) const;
  // A view with a new shape of the same numel; one dimension may be -1 (inferred).
  Tensor reshaped(Shape shape) const;
  // A view of shape_numel(shape) floats of this tensor's storage from element `offset`
  // (shared: a write through one is seen through the other). InputError past the end.
  Tensor view(int64_t offset, const Shape& shape) const;
  void fill(float value);
  void zero() { fill(0.0f); }
  // Gives the tensor this shape on `device` (the one-argument form keeps its device),
  // contents undefined: keeps the buffer when it holds the new shape's numbers (the
  // tensors sharing it then see the new contents), reallocates otherwise. A module's
  // output buffers grow to the largest shape they are asked for and serve every smaller
  // one: steps of one shape, and a prompt after decoding steps, allocate nothing. What a
  // module returns is valid until its next call.
  void ensure_shape(const Shape& shape);
  void ensure_shape(const Shape& shape, Device device);
  // Copies values from a tensor of the same numel, on any device.
  void copy_from(const Tensor& other);

 private:
  Shape shape_;
  int64_t numel_ = 0;
  int64_t capacity_ = 0;  // floats in storage_ (>= numel_)
  Device device_ = Device::kCpu;
  std::shared_ptr<float[]> storage_;
};

// Throws InputError("<what>: expected shape A, got B") if the shapes differ.
void check_shape(const Tensor& t, const Shape& expected, std::string_view what);

}  // namespace tinylm
