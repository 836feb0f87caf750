// PyTorch's CPU random generator, reproduced so that the course's examples that start
// from torch.manual_seed(s) give the book's numbers exactly: a 32-bit Mersenne Twister
// (MT19937, seeded as std::mt19937 is: PyTorch's at::mt19937 uses the same init_genrand)
// and PyTorch's mapping of one 32-bit draw to a float in [from, to):
//   x = (draw & (2^24 - 1)) / 2^24 ;  value = x * (to - from) + from   (in float)
// torch.rand(shape) fills the tensor in row-major order with one draw per element, and
// nn.Linear's default init is uniform_(-1/sqrt(fan_in), 1/sqrt(fan_in)) on its weight
// [out, in] (kaiming_uniform_ with a = sqrt(5)), then the same on its bias if it has one.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace tinylm::course {

class TorchCpuGenerator {
 public:
  explicit TorchCpuGenerator(uint32_t seed) : mt_(seed) {}

  // One element of tensor.uniform_(from, to).
  float uniform(float from, float to) {
    const uint32_t draw = static_cast<uint32_t>(mt_());
    const float x = static_cast<float>(draw & 0xFFFFFFu) * (1.0f / 16777216.0f);
    return x * (to - from) + from;
  }

  // torch.rand(count elements): [count] in [0, 1), row-major order.
  std::vector<float> rand(int64_t count) {
    std::vector<float> out(static_cast<size_t>(count));
    for (float& v : out) v = uniform(0.0f, 1.0f);
    return out;
  }

  // The weight of nn.Linear(in, out, bias=False) as PyTorch initialises it: [out, in].
  std::vector<float> linear_weight(int64_t in, int64_t out) {
    const auto bound = static_cast<float>(1.0 / std::sqrt(static_cast<double>(in)));
    std::vector<float> w(static_cast<size_t>(in * out));
    for (float& v : w) v = uniform(-bound, bound);
    return w;
  }

 private:
  std::mt19937 mt_;
};

}  // namespace tinylm::course
