// AdamW on the GPU (CPU twin: ops/adamw.h), one thread per element; the bias corrections
// are computed once on the host in double, as the CPU version does. adamw_update_spans
// updates every tensor of a model in one launch (cuda/spans.cuh): the spans' descriptors
// go to the device with an asynchronous copy, ordered before the launch on the default
// stream. One launch instead of one per tensor: a step's ~80 small launches were bound by
// the host.
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/device.h"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/scratch.cuh"
#include "cuda/spans.cuh"
#include "util/error.h"

namespace tinylm::cuda {

namespace {

struct Moments {
  float lr, beta1, beta2, eps, step_size, inv_sqrt_bc2;
};

Moments moments_of(const ops::AdamWHyper& h, int64_t step) {
  require(step >= 1, "adamw: step must start at 1, got " + std::to_string(step));
  const double bc1 = 1.0 - std::pow(static_cast<double>(h.beta1), static_cast<double>(step));
  const double bc2 = 1.0 - std::pow(static_cast<double>(h.beta2), static_cast<double>(step));
  return {h.lr,
          h.beta1,
          h.beta2,
          h.eps,
          static_cast<float>(h.lr / bc1),
          static_cast<float>(1.0 / std::sqrt(bc2))};
}

__device__ void adamw_element(float* p, const float* g, float* m, float* v, int64_t i,
                              const Moments& a, float weight_decay) {
  const float gi = g[i];
  const float mi = a.beta1 * m[i] + (1.0f - a.beta1) * gi;
  const float vi = a.beta2 * v[i] + (1.0f - a.beta2) * gi * gi;
  float pi = p[i] - a.lr * weight_decay * p[i];
  pi -= a.step_size * mi / (sqrtf(vi) * a.inv_sqrt_bc2 + a.eps);
  p[i] = pi;
  m[i] = mi;
  v[i] = vi;
}

// One span of adamw_update_spans on the device: its tensors, size, decay and the first
// block of the grid that works on it.
struct SpanOnDevice {
  float* p;
  const float* g;
  float* m;
  float* v;
  int64_t n;
  float weight_decay;
  unsigned first_block;
};

// spans [count] by first_block, ascending; blockDim.x = kThreads.
__global__ void adamw_spans_kernel(const SpanOnDevice* spans, int count, Moments a) {
  const SpanOnDevice& s = span_of_block(spans, count);
  const int64_t i = static_cast<int64_t>(blockIdx.x - s.first_block) * blockDim.x + threadIdx.x;
  if (i < s.n) adamw_element(s.p, s.g, s.m, s.v, i, a, s.weight_decay);
}

}  // namespace

// One tensor: a step of one span (with decay: h.weight_decay as given).
void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const ops::AdamWHyper& h,
                  int64_t step) {
  cuda::adamw_update_spans({{p, g, m, v, N, true}}, h, step);
}

void adamw_update_spans(const std::vector<ops::AdamWSpan>& spans, const ops::AdamWHyper& h,
                        int64_t step) {
  const Moments a = moments_of(h, step);
  thread_local std::vector<SpanOnDevice> on_device;  // kept from call to call
  on_device.clear();
  int64_t blocks = 0;
  for (const ops::AdamWSpan& s : spans) {
    if (s.n <= 0) continue;
    on_device.push_back({s.p, s.g, s.m, s.v, s.n, ops::span_hyper(s, h).weight_decay,
                         static_cast<unsigned>(blocks)});
    blocks += blocks_for(s.n);
  }
  if (on_device.empty()) return;
  require(blocks <= INT32_MAX, "adamw: too many parameters for one grid");
  auto* table = scratch<SpanOnDevice>(ScratchSlot::kSpans, static_cast<int64_t>(on_device.size()));
  copy_to_device(table, on_device.data(), sizeof(SpanOnDevice) * on_device.size());
  adamw_spans_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(
      table, static_cast<int>(on_device.size()), a);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda
