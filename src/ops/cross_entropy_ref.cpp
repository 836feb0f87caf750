// Cross-entropy with ignore_index, reference version.
//   logits [N, V], targets [N] -> mean over non-ignored rows of
//     loss_i = log(sum_j exp(x_ij)) - x_i,target   (computed as max + log sum exp(x - max))
//   dlogits [N, V] (if not null) = (softmax(x_i) - onehot(target_i)) / count, 0 on
//   ignored rows.
#include <algorithm>
#include <cmath>
#include <string>

#include "ops/cross_entropy.h"
#include "util/error.h"

namespace tinylm::ops::ref {

double cross_entropy(const float* logits, const int32_t* targets, float* dlogits, int64_t N,
                     int64_t V, int32_t ignore_index) {
  int64_t count = 0;
  for (int64_t i = 0; i < N; ++i) {
    if (targets[i] == ignore_index) continue;
    require(targets[i] >= 0 && targets[i] < V,
            "cross_entropy: target " + std::to_string(targets[i]) + " at position " +
                std::to_string(i) + " is out of range [0, " + std::to_string(V) + ")");
    ++count;
  }

  double total = 0.0;
  for (int64_t i = 0; i < N; ++i) {
    const float* x = logits + i * V;
    const int32_t t = targets[i];
    if (t == ignore_index) {
      if (dlogits)
        for (int64_t j = 0; j < V; ++j) dlogits[i * V + j] = 0.0f;
      continue;
    }
    double mx = x[0];
    for (int64_t j = 0; j < V; ++j) mx = std::max(mx, static_cast<double>(x[j]));
    double sum = 0.0;
    for (int64_t j = 0; j < V; ++j) sum += std::exp(x[j] - mx);
    const double log_sum_exp = mx + std::log(sum);
    total += log_sum_exp - x[t];
    if (dlogits) {
      for (int64_t j = 0; j < V; ++j) {
        const double p = std::exp(x[j] - log_sum_exp);
        const double onehot = j == t ? 1.0 : 0.0;
        dlogits[i * V + j] = static_cast<float>((p - onehot) / count);
      }
    }
  }
  return count > 0 ? total / count : 0.0;
}

}  // namespace tinylm::ops::ref
