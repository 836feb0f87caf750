// Global-norm gradient clipping on the GPU (CPU twin: ops/clip.h). The spans' data are
// device memory: the squares of all spans are summed in double by one grid-stride launch
// (cuda/spans.cuh; each span gets up to kMaxBlocks blocks; block sums added to one double
// with atomicAdd), the total is downloaded once, and the host
// computes norm and coef in double as ops::ref does; when coef < 1 every span is scaled
// by float(g * coef) (g widened to double, as ref), again in one launch.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/device.h"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/scratch.cuh"
#include "cuda/spans.cuh"

namespace tinylm::cuda {

namespace {

constexpr unsigned kMaxBlocks = 1024;  // per span: a grid-stride loop does the rest

// A span on the device: its gradient, size, and its blocks [first_block, first_block + blocks).
struct GradOnDevice {
  float* g;
  int64_t n;
  unsigned first_block, blocks;
};

__device__ double warp_sum_double(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// *total += sum of g^2 over every span (in double), blockDim.x = kThreads.
__global__ void sum_squares_kernel(const GradOnDevice* spans, int count, double* total) {
  __shared__ double warp_sums[32];
  const GradOnDevice& s = span_of_block(spans, count);
  double sum = 0.0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x - s.first_block) * blockDim.x + threadIdx.x;
       i < s.n; i += static_cast<int64_t>(s.blocks) * blockDim.x) {
    const double x = s.g[i];
    sum += x * x;
  }
  sum = warp_sum_double(sum);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp != 0) return;
  sum = lane < static_cast<int>(blockDim.x >> 5) ? warp_sums[lane] : 0.0;
  sum = warp_sum_double(sum);
  if (lane == 0) atomicAdd(total, sum);
}

__global__ void scale_by_kernel(const GradOnDevice* spans, int count, double coef) {
  const GradOnDevice& s = span_of_block(spans, count);
  for (int64_t i = static_cast<int64_t>(blockIdx.x - s.first_block) * blockDim.x + threadIdx.x;
       i < s.n; i += static_cast<int64_t>(s.blocks) * blockDim.x)
    s.g[i] = static_cast<float>(s.g[i] * coef);
}

// The non-empty spans on the device (in scratch): their count and the grid's blocks.
struct SpanTable {
  const GradOnDevice* spans = nullptr;
  int count = 0;
  unsigned blocks = 0;
};

SpanTable upload_spans(const std::vector<ops::GradSpan>& grads) {
  thread_local std::vector<GradOnDevice> host;  // kept from call to call
  host.clear();
  unsigned blocks = 0;
  for (const ops::GradSpan& span : grads) {
    if (span.size <= 0) continue;
    const unsigned own = std::min(blocks_for(span.size), kMaxBlocks);
    host.push_back({span.data, span.size, blocks, own});
    blocks += own;
  }
  if (host.empty()) return {};
  auto* table = scratch<GradOnDevice>(ScratchSlot::kSpans, static_cast<int64_t>(host.size()));
  copy_to_device(table, host.data(), sizeof(GradOnDevice) * host.size());
  return {table, static_cast<int>(host.size()), blocks};
}

}  // namespace

double clip_grad_norm(const std::vector<ops::GradSpan>& grads, double max_norm) {
  const SpanTable t = upload_spans(grads);
  double sum_sq = 0.0;
  if (t.count > 0) {
    double* total = scratch<double>(ScratchSlot::kSum, 1);
    TINYLM_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(double), nullptr));
    sum_squares_kernel<<<t.blocks, kThreads>>>(t.spans, t.count, total);
    TINYLM_CUDA_CHECK_LAUNCH();
    TINYLM_CUDA_CHECK(cudaMemcpy(&sum_sq, total, sizeof(double), cudaMemcpyDeviceToHost));
  }
  const double norm = std::sqrt(sum_sq);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0 && t.count > 0) {
    scale_by_kernel<<<t.blocks, kThreads>>>(t.spans, t.count, coef);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  return norm;
}

}  // namespace tinylm::cuda
