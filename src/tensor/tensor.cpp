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

namespace {

// Storage of n floats on a device, freed through that device (on the CPU, on a 64-byte
// boundary: tensor/device.cpp).
std::shared_ptr<float[]> device_storage(Device device, int64_t n) {
  const DeviceMemory& memory = device_memory(device);
  float* p = static_cast<float*>(memory.alloc(sizeof(float) * std::max<int64_t>(n, 1)));
  return std::shared_ptr<float[]>(p, [free = memory.free](float* q) { free(q); });
}

}  // namespace

Tensor Tensor::empty(const Shape& shape, Device device) {
  if (shape.size() > 4)
    throw InputError("tensors have at most 4 dimensions, got " + shape_str(shape));
  Tensor t;
  t.shape_ = shape;
  t.numel_ = shape_numel(shape);
  t.device_ = device;
  t.storage_ = device_storage(device, t.numel_);
  t.capacity_ = t.numel_;
  return t;
}

Tensor Tensor::zeros(const Shape& shape, Device device) {
  Tensor t = empty(shape, device);
  t.zero();
  return t;
}

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
  if (i < 0 || i >= n)
    throw InputError("dim " + std::to_string(i) + " of shape " + shape_str(shape_));
  return shape_[i];
}

std::vector<float> Tensor::to_vector() const {
  if (device_ == Device::kCpu) return {data(), data() + numel_};
  std::vector<float> host(numel_);
  if (numel_) device_memory(device_).to_host(host.data(), data(), sizeof(float) * numel_);
  return host;
}

Tensor Tensor::clone() const {
  Tensor t = empty(shape_, device_);
  t.copy_from(*this);
  return t;
}

Tensor Tensor::to(Device device) const {
  if (device == device_) return *this;
  Tensor t = empty(shape_, device);
  t.copy_from(*this);
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

Tensor Tensor::view(int64_t offset, const Shape& shape) const {
  const int64_t n = shape_numel(shape);
  require(offset >= 0 && n >= 0 && offset + n <= capacity_, [&] {
    return "view of " + shape_str(shape) + " at " + std::to_string(offset) + " is past the " +
           std::to_string(capacity_) + " floats of the tensor";
  });
  Tensor t;
  t.shape_ = shape;
  t.numel_ = t.capacity_ = n;
  t.device_ = device_;
  t.storage_ = std::shared_ptr<float[]>(storage_, storage_.get() + offset);  // aliasing
  return t;
}

void Tensor::fill(float value) {
  if (device_ == Device::kCpu) {
    std::fill(data(), data() + numel_, value);
    return;
  }
  require(value == 0.0f, [&] {
    return std::string("fill: a ") + device_name(device_) + " tensor can only be zeroed";
  });
  if (numel_) device_memory(device_).zero(data(), sizeof(float) * numel_);
}

void Tensor::ensure_shape(const Shape& shape) {
  ensure_shape(shape, device_);
}

void Tensor::ensure_shape(const Shape& shape, Device device) {
  const int64_t numel = shape_numel(shape);
  if (storage_ && device == device_ && shape.size() <= 4 && numel <= capacity_) {
    shape_ = shape;
    numel_ = numel;
    return;
  }
  *this = empty(shape, device);
}

// Between two devices other than the CPU, the numbers pass through the host.
void Tensor::copy_from(const Tensor& other) {
  if (other.numel_ != numel_)
    throw InputError("copy_from: " + shape_str(other.shape_) + " into " + shape_str(shape_));
  if (!numel_) return;
  const size_t bytes = sizeof(float) * numel_;
  if (device_ == Device::kCpu && other.device_ == Device::kCpu) {
    std::memcpy(data(), other.data(), bytes);
  } else if (other.device_ == Device::kCpu) {
    device_memory(device_).to_device(data(), other.data(), bytes);
  } else if (device_ == Device::kCpu) {
    device_memory(other.device_).to_host(data(), other.data(), bytes);
  } else {
    const std::vector<float> host = other.to_vector();
    device_memory(device_).to_device(data(), host.data(), bytes);
  }
}

void check_shape(const Tensor& t, const Shape& expected, std::string_view what) {
  if (t.shape() != expected)
    throw InputError(std::string(what) + ": expected shape " + shape_str(expected) + ", got " +
                     shape_str(t.shape()));
}

}  // namespace tinylm
