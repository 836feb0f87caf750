#include "tensor/shape.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace tinylm {

Shape::Shape(std::initializer_list<int64_t> dims) {
  for (const int64_t d : dims) push_back(d);
}

Shape::Shape(const std::vector<int64_t>& dims) {
  for (const int64_t d : dims) push_back(d);
}

void Shape::push_back(int64_t dim) {
  if (size_ == kMaxDims)
    throw InputError("a shape has at most " + std::to_string(kMaxDims) + " dimensions");
  dims_[size_++] = dim;
}

bool operator==(const Shape& a, const Shape& b) {
  return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace tinylm
