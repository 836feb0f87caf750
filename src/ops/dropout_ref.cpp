// Inverted dropout, reference version: x [N] -> y [N], mask [N]; backward dy -> dx [N].
//   for each i: u = counter_uniform(key, i); keep = u >= p;
//   mask[i] = keep ? 1/(1-p) : 0; y[i] = x[i] * mask[i]. p == 0 copies (mask 1).
//   dx[i] = dy[i] * mask[i].
// (Written independently of the fast version; the tests check both draw the same mask.)
#include <string>

#include "ops/dropout.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace tinylm::ops::ref {

void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, uint64_t key) {
  require(p >= 0.0f && p <= 1.0f,
          "dropout: probability " + std::to_string(p) + " is outside [0, 1]");
  for (int64_t i = 0; i < N; ++i) {
    if (p == 0.0f) {
      mask[i] = 1.0f;
      y[i] = x[i];
      continue;
    }
    const bool keep = counter_uniform(key, static_cast<uint64_t>(i)) >= p;
    mask[i] = keep ? 1.0f / (1.0f - p) : 0.0f;
    y[i] = x[i] * mask[i];
  }
}

void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N) {
  for (int64_t i = 0; i < N; ++i) dx[i] = dy[i] * mask[i];
}

}  // namespace tinylm::ops::ref
