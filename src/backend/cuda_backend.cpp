// The CUDA kernels of src/cuda as a backend table (a build with CUDA only; usable only
// with a GPU): every entry of backend.h, each with its ops/ contract (src/cuda/kernels.h,
// src/cuda/products.h). Tests: tests/backend/op_table_test.cpp, skipped without a GPU.
#ifdef TINYLM_WITH_CUDA
#include <numeric>
#include <string>
#include <vector>

#include "backend/registry.h"
#include "cuda/device.h"
#include "cuda/kernels.h"
#include "cuda/products.h"
#include "cuda/scratch.cuh"
#include "util/error.h"

namespace tinylm {
namespace {

bool gpu_present(std::string* why) {
  return cuda::device_count(why) > 0;
}

// ops/cross_entropy.h's contract on device memory: the kernel writes per-row losses; the
// host counts the rows that are not ignored and checks the targets' range first (the CPU
// kernel's checks), then sums the row losses in row order, in double.
double cross_entropy(const float* logits, const int32_t* targets, float* dlogits, int64_t N,
                     int64_t V, int32_t ignore_index) {
  thread_local std::vector<int32_t> host_targets;
  host_targets.resize(static_cast<size_t>(N));
  cuda::copy_to_host(host_targets.data(), targets, sizeof(int32_t) * N);
  int64_t count = 0;
  for (int64_t i = 0; i < N; ++i) {
    const int32_t t = host_targets[i];
    if (t == ignore_index) continue;
    require(t >= 0 && t < V, [&] {
      return "cross_entropy: target " + std::to_string(t) + " at position " + std::to_string(i) +
             " is out of range [0, " + std::to_string(V) + ")";
    });
    ++count;
  }
  // kept from call to call: a device allocation per call cost a step its cudaMalloc and
  // cudaFree (which waits for the device)
  float* row_loss = cuda::scratch<float>(cuda::ScratchSlot::kRowLoss, N);
  cuda::cross_entropy(logits, targets, dlogits, row_loss, N, V, count, ignore_index);
  thread_local std::vector<float> host_loss;
  host_loss.resize(static_cast<size_t>(N));
  cuda::copy_to_host(host_loss.data(), row_loss, sizeof(float) * host_loss.size());
  double sum = 0.0;
  for (float loss : host_loss) sum += loss;
  return count > 0 ? sum / static_cast<double>(count) : 0.0;
}

}  // namespace

const Backend& cuda_backend() {
  static const Backend table = [] {
    register_device_memory(Device::kCuda,
                           {cuda::device_alloc, cuda::device_free, cuda::copy_to_device,
                            cuda::copy_to_host, cuda::fill_zero});
    return Backend{
        .name = "cuda",
        .device = Device::kCuda,
        .available = gpu_present,
        .peak_flops = cuda::fp32_peak_flops,
        .set_matmul_precision = cuda::set_matmul_precision,
        .matmul = cuda::matmul,
        .linear_forward = cuda::linear_forward,
        .linear_backward = cuda::linear_backward,
        .to_bf16 = cuda::to_bf16,
        .linear_forward_bf16 = cuda::linear_forward_bf16,
        .layernorm_forward = cuda::layernorm_forward,
        .layernorm_backward = cuda::layernorm_backward,
        .activation_forward = cuda::activation_forward,
        .activation_backward = cuda::activation_backward,
        .softmax_forward = cuda::softmax_forward,
        .softmax_backward = cuda::softmax_backward,
        .attention_forward = cuda::attention_forward,
        .attention_backward = cuda::attention_backward,
        .attention_forward_tiled = cuda::attention_forward_tiled,
        .attention_backward_tiled = cuda::attention_backward_tiled,
        .embedding_forward = cuda::embedding_forward,
        .embedding_backward = cuda::embedding_backward,
        .dropout_forward = cuda::dropout_forward,
        .dropout_backward = cuda::dropout_backward,
        .cross_entropy = cross_entropy,
        .add = cuda::add,
        .scale = cuda::scale,
        .copy = cuda::copy,
        .split_heads = cuda::split_heads,
        .join_heads = cuda::join_heads,
        .heads_to_rows = cuda::heads_to_rows,
        .rows_to_heads = cuda::rows_to_heads,
        .add_positions = cuda::add_positions,
        .sum_over_batch = cuda::sum_over_batch,
        .adamw_update = cuda::adamw_update,
        .adamw_update_spans = cuda::adamw_update_spans,
        .clip_grad_norm = cuda::clip_grad_norm,
    };
  }();
  return table;
}

}  // namespace tinylm
#endif  // TINYLM_WITH_CUDA
