// Cross-entropy with ignore_index, fast version.
//   logits [N, V], targets [N] -> mean loss over the rows whose target != ignore_index;
//   dlogits [N, V] (if not null) = (softmax(logits) - onehot(target)) / count, 0 on
//   ignored rows.
// (exp is ops/exp_simd.h, so the row loops vectorise.)
// Per row: loss = log(sum_j exp(x_j - max)) + max - x_target (log-sum-exp). Rows run in
// parallel, each in one pass over the row (max, then exp-and-sum into dlogits, then the
// scale); per-row losses are summed afterwards in row order, in double, so the result
// does not depend on the thread count.
#include "ops/cross_entropy.h"

#include <cmath>
#include <string>
#include <vector>

#include "ops/exp_simd.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {
constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial
}

double cross_entropy(const float* logits, const int32_t* targets, float* dlogits, int64_t N,
                     int64_t V, int32_t ignore_index) {
  int64_t count = 0;
  for (int64_t i = 0; i < N; ++i) {
    if (targets[i] == ignore_index) continue;
    require(targets[i] >= 0 && targets[i] < V, [&] {
      return "cross_entropy: target " + std::to_string(targets[i]) + " at position " +
             std::to_string(i) + " is out of range [0, " + std::to_string(V) + ")";
    });
    ++count;
  }
  const float inv_count = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  // Kept from call to call (the memory plan); the region's threads write through the
  // pointer, since each thread has its own thread_local.
  thread_local std::vector<double> row_loss_pool;
  row_loss_pool.assign(N, 0.0);
  double* row_loss = row_loss_pool.data();

#pragma omp parallel for schedule(static) if (N > 1 && N * V >= kMinParallel)
  for (int64_t i = 0; i < N; ++i) {
    const float* x = logits + i * V;
    float* d = dlogits ? dlogits + i * V : nullptr;
    const int32_t t = targets[i];
    if (t == ignore_index) {
      if (d)
        for (int64_t j = 0; j < V; ++j) d[j] = 0.0f;
      continue;
    }
    float mx = x[0];
#pragma omp simd reduction(max : mx)
    for (int64_t j = 0; j < V; ++j) mx = std::fmax(mx, x[j]);
    float sum = 0.0f;
    if (d) {
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < V; ++j) {
        d[j] = exp_simd(x[j] - mx);
        sum += d[j];
      }
      const float scale = inv_count / sum;  // softmax / count
#pragma omp simd
      for (int64_t j = 0; j < V; ++j) d[j] *= scale;
      d[t] -= inv_count;
    } else {
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < V; ++j) sum += exp_simd(x[j] - mx);
    }
    row_loss[i] = std::log(static_cast<double>(sum)) + mx - x[t];
  }

  double total = 0.0;
  for (int64_t i = 0; i < N; ++i) total += row_loss[i];
  return count > 0 ? total / static_cast<double>(count) : 0.0;
}

}  // namespace tinylm::ops
