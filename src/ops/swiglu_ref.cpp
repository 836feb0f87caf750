// SwiGLU's element-wise part, reference version (double, std::exp; see swiglu.h).
#include <cmath>

#include "ops/swiglu.h"

namespace tinylm::ops::ref {

void swiglu_forward(const float* gate, const float* up, float* h, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double g = gate[i], s = 1.0 / (1.0 + std::exp(-g));
    h[i] = static_cast<float>(g * s * up[i]);
  }
}

void swiglu_backward(const float* dh, const float* gate, const float* up, float* dgate, float* dup,
                     int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double g = gate[i], s = 1.0 / (1.0 + std::exp(-g));
    dgate[i] = static_cast<float>(static_cast<double>(dh[i]) * up[i] * s * (1.0 + g * (1.0 - s)));
    dup[i] = static_cast<float>(static_cast<double>(dh[i]) * g * s);
  }
}

}  // namespace tinylm::ops::ref
