// Embedding lookup on the GPU (CPU twin: ops/embedding.h). The ids are device memory; to
// keep the CPU's contract (an out-of-range id is an InputError naming it) they are
// downloaded and checked first, with the CPU's message.
//   forward:  y [N, C], row i = table[ids[i]] (one block per row)
//   backward: dtable [V, C] += dy rows by id. The host, which has the ids anyway, lists
//             the rows of each distinct id in index order (a counting sort); one block per
//             (distinct id, tile of 32 columns) adds them in that order, so every float sum
//             is the CPU's, bit for bit (no atomics). Each thread has kInFlight rows' loads in
//             flight before it adds them in order: one id can own thousands of rows (a space in a
//             char vocabulary), and one dependent load at a time held a step for 1 ms.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/device.h"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/scratch.cuh"
#include "util/error.h"

namespace tinylm::cuda {

namespace {

std::vector<int32_t> checked_ids(const int32_t* ids, int64_t N, int64_t V) {
  std::vector<int32_t> host(static_cast<size_t>(N));
  copy_to_host(host.data(), ids, sizeof(int32_t) * host.size());
  for (int64_t i = 0; i < N; ++i) {
    require(host[i] >= 0 && host[i] < V, [&] {
      return "embedding: id " + std::to_string(host[i]) + " at position " + std::to_string(i) +
             " is out of range [0, " + std::to_string(V) + ")";
    });
  }
  return host;
}

__global__ void gather_rows_kernel(const int32_t* ids, const float* table, float* y, int64_t C) {
  const int64_t i = blockIdx.x;
  const float* src = table + static_cast<int64_t>(ids[i]) * C;
  float* dst = y + i * C;
  for (int64_t c = threadIdx.x; c < C; c += blockDim.x) dst[c] = src[c];
}

constexpr int kInFlight = 16;
constexpr int kColumnsPerBlock = 32;

// Block (u, tile) adds the rows rows[start[u] .. start[u+1]) of dy, in order, to
// dtable[id[u]], in the tile's columns (and every gridDim.y-th tile after it).
__global__ void __launch_bounds__(kColumnsPerBlock)
    scatter_add_kernel(const float* dy, float* dtable, int64_t C, const int64_t* rows,
                       const int64_t* start, const int64_t* id) {
  const int64_t u = blockIdx.x;
  const int64_t begin = start[u], end = start[u + 1];
  float* dst = dtable + id[u] * C;
  for (int64_t c = static_cast<int64_t>(blockIdx.y) * blockDim.x + threadIdx.x; c < C;
       c += static_cast<int64_t>(gridDim.y) * blockDim.x) {
    float sum = dst[c];
    int64_t p = begin;
    for (; p + kInFlight <= end; p += kInFlight) {
      float row[kInFlight];
#pragma unroll
      for (int b = 0; b < kInFlight; ++b) row[b] = dy[rows[p + b] * C + c];
#pragma unroll
      for (int b = 0; b < kInFlight; ++b) sum += row[b];
    }
    for (; p < end; ++p) sum += dy[rows[p] * C + c];
    dst[c] = sum;
  }
}

// One host array for the kernel: rows [N] (by id, then index: a stable counting sort),
// start [U + 1], id [U] for the U distinct ids. Returns U.
int64_t rows_by_id(const std::vector<int32_t>& ids, int64_t V, std::vector<int64_t>& lists) {
  const int64_t N = static_cast<int64_t>(ids.size());
  std::vector<int64_t> first(static_cast<size_t>(V) + 1, 0);  // first[v]: v's first slot
  for (int32_t v : ids) ++first[v + 1];
  std::vector<int64_t> start, id;
  for (int64_t v = 0; v < V; ++v) {
    if (first[v + 1] > 0) {
      start.push_back(first[v]);
      id.push_back(v);
    }
    first[v + 1] += first[v];
  }
  start.push_back(N);
  lists.assign(static_cast<size_t>(N), 0);
  for (int64_t i = 0; i < N; ++i) lists[first[ids[i]]++] = i;
  lists.insert(lists.end(), start.begin(), start.end());
  lists.insert(lists.end(), id.begin(), id.end());
  return static_cast<int64_t>(id.size());
}

}  // namespace

void embedding_forward(const int32_t* ids, const float* table, float* y, int64_t N, int64_t V,
                       int64_t C) {
  if (N <= 0) return;
  checked_ids(ids, N, V);
  if (C <= 0) return;
  gather_rows_kernel<<<rows_grid(N), row_threads(C)>>>(ids, table, y, C);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void embedding_backward(const float* dy, const int32_t* ids, float* dtable, int64_t N, int64_t V,
                        int64_t C) {
  if (N <= 0) return;
  const std::vector<int32_t> host = checked_ids(ids, N, V);
  if (C <= 0) return;
  std::vector<int64_t> lists;
  const int64_t U = rows_by_id(host, V, lists);
  int64_t* device_lists = scratch<int64_t>(ScratchSlot::kIndex, static_cast<int64_t>(lists.size()));
  copy_to_device(device_lists, lists.data(), sizeof(int64_t) * lists.size());
  // block (u, tile): id u's columns of one tile of a warp's width, each thread one column
  // walking its id's whole row list; with one block per id (all its columns) a frequent
  // id's rows went through one multiprocessor and held the step for 0.35 ms
  const int64_t tiles = std::min<int64_t>((C + kColumnsPerBlock - 1) / kColumnsPerBlock, 65535);
  const dim3 grid(rows_grid(U), static_cast<unsigned>(tiles));
  scatter_add_kernel<<<grid, kColumnsPerBlock>>>(dy, dtable, C, device_lists, device_lists + N,
                                                 device_lists + N + U + 1);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda
