// Fused attention on tensor cores (see flash_attention.cuh). A block has 4 warps; warp w
// owns rows 16 w .. 16 w + 15 of each 64-row tile it computes. Shared tiles are
// [64, kLd] floats (a row of up to 64 head dims or 64 keys, zero-padded), so every
// fragment pointer below is 32-byte aligned as wmma needs.
#include <mma.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "cuda/blas.cuh"
#include "cuda/check.cuh"
#include "cuda/dropout.cuh"
#include "cuda/flash_attention.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/reduce.cuh"
#include "cuda/scratch.cuh"
#include "cuda/softmax.cuh"

namespace tinylm::cuda::flash {

namespace {

constexpr int kTile = 64;      // queries or keys of a tile
constexpr int kDim = 64;       // head dims a tile holds
constexpr int kLd = kDim + 4;  // row stride of a shared tile, in floats
constexpr int kWarps = 4;      // warp w: rows 16 w .. 16 w + 15
constexpr int kBlock = 32 * kWarps;
constexpr int kTileFloats = kTile * kLd;
// Off until they are faster than the cuBLAS path: on an H200 (2026-11-28) the Shakespeare
// bf16 step took 20.8 ms with them and 14.4 ms without (docs/cuda.md).
constexpr bool kOnByDefault = false;

// What a kernel needs to see the scores of set n: the masks, the scale, dropout.
struct Scores {
  attention::MaskView m;
  float scale;
  float p, keep_scale;  // dropout probability and 1 / (1 - p); p == 0: none
  uint64_t key;
};

// The tensor-core parts: compiled for sm_80 and newer (and the host pass); the PTX for
// older GPUs gets kernels that trap, which fits() never launches there. (mma.h's own
// __CUDA_AMPERE_MMA__ is undefined again at the end of the header.)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define TINYLM_FLASH_MMA 1
#endif

#ifdef TINYLM_FLASH_MMA
namespace wmma = nvcuda::wmma;

// What query i of set n may see: keys [0, end) (end <= Tk), plus its additive mask row.
struct RowMask {
  int64_t end;
  const float* add;  // null: no additive mask
};

__device__ inline RowMask row_mask(const Scores& sc, int64_t n, int64_t i) {
  if (i >= sc.m.Tq) return {0, nullptr};  // a padding row of the tile
  const int64_t row = n * sc.m.Tq + i;
  return {sc.m.end(row), sc.m.row(row)};
}

// s: raw q.k of key j for the row -> the masked, scaled score (-inf if hidden).
__device__ inline float masked_score(const Scores& sc, const RowMask& rm, float s, int64_t j) {
  if (j >= rm.end) return -INFINITY;
  return rm.add ? s * sc.scale + rm.add[j] : s * sc.scale;
}

// The dropout factor of element (i, j) of set n (1 without dropout).
__device__ inline float keep_of(const Scores& sc, int64_t n, int64_t i, int64_t j) {
  if (sc.p == 0.0f) return 1.0f;
  return dropout_keep(sc.key, (n * sc.m.Tq + i) * sc.m.Tk + j, sc.p, sc.keep_scale);
}

// Rows row0 .. row0 + 63 of src [rows, D] into dst [64, kLd]; zeros past the rows and
// past column D (up to kDim), so padded products add nothing.
__device__ void load_tile(float* dst, const float* src, int64_t row0, int64_t rows, int64_t D) {
  for (int e = threadIdx.x; e < kTile * kDim; e += kBlock) {
    const int r = e / kDim, c = e % kDim;
    const int64_t row = row0 + r;
    dst[r * kLd + c] = (row < rows && c < D) ? src[row * D + c] : 0.0f;
  }
}

// 64 values of v [rows] from row0 into dst (0 past the rows).
__device__ void load_rows(float* dst, const float* v, int64_t row0, int64_t rows) {
  for (int r = threadIdx.x; r < kTile; r += kBlock) dst[r] = row0 + r < rows ? v[row0 + r] : 0.0f;
}

template <typename Frag>
__device__ inline void to_tf32(Frag& f) {
#pragma unroll
  for (int t = 0; t < f.num_elements; ++t) f.x[t] = wmma::__float_to_tf32(f.x[t]);
}

using Acc = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;

// acc[f] ([16, 16] each, columns 16 f ..) += A [16, K] B [K, 64], K a multiple of 8:
//   kRowA: A row-major at a (a[r * kLd + k]);  else A^T stored: a[k * kLd + r]
//   kRowB: B row-major at b (b[k * kLd + c]);  else B^T stored: b[c * kLd + k]
template <bool kRowA, bool kRowB>
__device__ void accumulate(Acc (&acc)[4], const float* a, const float* b, int K) {
  using LayoutA = std::conditional_t<kRowA, wmma::row_major, wmma::col_major>;
  using LayoutB = std::conditional_t<kRowB, wmma::row_major, wmma::col_major>;
  for (int k = 0; k < K; k += 8) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, LayoutA> fa;
    wmma::load_matrix_sync(fa, kRowA ? a + k : a + k * kLd, kLd);
    to_tf32(fa);
#pragma unroll
    for (int f = 0; f < 4; ++f) {
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, LayoutB> fb;
      wmma::load_matrix_sync(fb, kRowB ? b + k * kLd + 16 * f : b + 16 * f * kLd + k, kLd);
      to_tf32(fb);
      wmma::mma_sync(acc[f], fa, fb, acc[f]);
    }
  }
}

__device__ inline void zero(Acc (&acc)[4]) {
#pragma unroll
  for (int f = 0; f < 4; ++f) wmma::fill_fragment(acc[f], 0.0f);
}

__device__ inline void store(float* out, const Acc (&acc)[4]) {
#pragma unroll
  for (int f = 0; f < 4; ++f)
    wmma::store_matrix_sync(out + 16 * f, acc[f], kLd, wmma::mem_row_major);
}

// The warp's strip out [16, 64] = a [16, K] b^T (b [64, K] row-major): q k^T, dy v^T.
__device__ void strip_products(float* out, const float* a, const float* b, int K) {
  Acc acc[4];
  zero(acc);
  accumulate<true, false>(acc, a, b, K);
  store(out, acc);
}

// dst [rows, D] rows row0.. from the warp's strip src [16, kLd] (rows past `rows` and
// columns past D are left out), times `factor`.
__device__ void write_strip(float* dst, const float* src, int64_t row0, int64_t rows, int64_t D,
                            float factor) {
  const int lane = threadIdx.x & 31;
  for (int e = lane; e < 16 * kDim; e += 32) {
    const int r = e / kDim, c = e % kDim;
    if (row0 + r < rows && c < D) dst[(row0 + r) * D + c] = src[r * kLd + c] * factor;
  }
}

__device__ inline int round8(int64_t D) {
  return static_cast<int>((D + 7) / 8 * 8);
}

// The last key any query of the tile at i0 may see, plus one.
__device__ inline int64_t tile_key_limit(const attention::MaskView& m, int64_t n, int64_t i0) {
  const int64_t last = (i0 + kTile < m.Tq ? i0 + kTile : m.Tq) - 1;
  return m.end(n * m.Tq + last);
}
#endif  // TINYLM_FLASH_MMA

// grid (N, query tiles). y [N, Tq, Dv], lse [N, Tq].
__global__ void __launch_bounds__(kBlock)
    forward_kernel(const float* q, const float* k, const float* v, float* y, float* lse, Scores sc,
                   int64_t Dk, int64_t Dv) {
#ifdef TINYLM_FLASH_MMA
  extern __shared__ __align__(128) float smem[];
  float* Qs = smem;
  float* Ks = Qs + kTileFloats;
  float* Vs = Ks + kTileFloats;
  float* Ss = Vs + kTileFloats;
  const int64_t n = blockIdx.x, i0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t Tq = sc.m.Tq, Tk = sc.m.Tk;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float* strip = Ss + 16 * warp * kLd;
  const float* qn = q + n * Tq * Dk;
  const float* kn = k + n * Tk * Dk;
  const float* vn = v + n * Tk * Dv;
  const int kk = round8(Dk);
  const int64_t limit = tile_key_limit(sc.m, n, i0);
  load_tile(Qs, qn, i0, Tq, Dk);

  // Pass 1: each row's running max and sum (lane-uniform), then lse.
  float mx[16], sum[16];
#pragma unroll
  for (int r = 0; r < 16; ++r) mx[r] = -INFINITY, sum[r] = 0.0f;
  for (int64_t j0 = 0; j0 < limit; j0 += kTile) {
    __syncthreads();  // every warp is done with the last K tile
    load_tile(Ks, kn, j0, Tk, Dk);
    __syncthreads();
    strip_products(strip, Qs + 16 * warp * kLd, Ks, kk);
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 16; ++r) {
      const RowMask rm = row_mask(sc, n, i0 + 16 * warp + r);
      const float x0 = masked_score(sc, rm, strip[r * kLd + lane], j0 + lane);
      const float x1 = masked_score(sc, rm, strip[r * kLd + lane + 32], j0 + lane + 32);
      const float m_new = fmaxf(mx[r], warp_max(fmaxf(x0, x1)));
      if (m_new == -INFINITY) continue;  // nothing seen yet in this row
      const float part = warp_sum(__expf(x0 - m_new) + __expf(x1 - m_new));
      sum[r] = sum[r] * __expf(mx[r] - m_new) + part;
      mx[r] = m_new;
    }
  }
  float z[16];
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    z[r] = sum[r] > 0.0f ? mx[r] + logf(sum[r]) : -INFINITY;
    const int64_t i = i0 + 16 * warp + r;
    if (lane == 0 && i < Tq) lse[n * Tq + i] = z[r];
  }

  // Pass 2: y = sum over key tiles of (exp(S - lse) keep) v.
  Acc acc[4];
  zero(acc);
  for (int64_t j0 = 0; j0 < limit; j0 += kTile) {
    __syncthreads();
    load_tile(Ks, kn, j0, Tk, Dk);
    load_tile(Vs, vn, j0, Tk, Dv);
    __syncthreads();
    strip_products(strip, Qs + 16 * warp * kLd, Ks, kk);
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 16; ++r) {
      const int64_t i = i0 + 16 * warp + r;
      const RowMask rm = row_mask(sc, n, i);
      for (int c = lane; c < kTile; c += 32) {
        const float x = masked_score(sc, rm, strip[r * kLd + c], j0 + c);
        const float P = (x == -INFINITY || z[r] == -INFINITY) ? 0.0f : __expf(x - z[r]);
        strip[r * kLd + c] = P == 0.0f ? 0.0f : P * keep_of(sc, n, i, j0 + c);
      }
    }
    __syncwarp();
    accumulate<true, true>(acc, strip, Vs, kTile);
  }
  __syncwarp();
  store(strip, acc);
  __syncwarp();
  write_strip(y + n * Tq * Dv, strip, i0 + 16 * warp, Tq, Dv, 1.0f);
#else
  __trap();
#endif
}

// delta [rows] = rowsum(dy * y), one warp per row.
__global__ void delta_kernel(const float* dy, const float* y, float* delta, int64_t D,
                             int64_t rows) {
  const int64_t r = warp_row();
  if (r >= rows) return;
  float s = 0.0f;
  for (int64_t d = threadIdx.x & 31; d < D; d += 32) s += dy[r * D + d] * y[r * D + d];
  s = warp_sum(s);
  if ((threadIdx.x & 31) == 0) delta[r] = s;
}

#ifdef TINYLM_FLASH_MMA
// The warp's strips of S (in Ss) and dP = dy v^T (in dPs) become, in place,
//   Ss: P keep (P = exp(S - lse), 0 where hidden)     dPs: dS = P (dP keep - delta)
// for queries i0 + 16 w + r and keys j0 + c. lse_t, delta_t: the query tile's 64 values.
__device__ void weights_and_grads(float* Ss, float* dPs, const float* lse_t, const float* delta_t,
                                  const Scores& sc, int64_t n, int64_t i0, int64_t j0) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  for (int r = 0; r < 16; ++r) {
    const int t = 16 * warp + r;
    const int64_t i = i0 + t;
    const float z = lse_t[t], d = delta_t[t];
    const RowMask rm = row_mask(sc, n, i);
    for (int c = lane; c < kTile; c += 32) {
      const float x = masked_score(sc, rm, Ss[t * kLd + c], j0 + c);
      const float P = (x == -INFINITY || z == -INFINITY) ? 0.0f : __expf(x - z);
      const float keep = P == 0.0f ? 0.0f : keep_of(sc, n, i, j0 + c);
      Ss[t * kLd + c] = P * keep;
      dPs[t * kLd + c] = P * (dPs[t * kLd + c] * keep - d);
    }
  }
}
#endif  // TINYLM_FLASH_MMA

// grid (N, key tiles): dk, dv [N, Tk, D] of the block's 64 keys.
__global__ void __launch_bounds__(kBlock)
    key_grads_kernel(const float* dy, const float* q, const float* k, const float* v,
                     const float* lse, const float* delta, float* dk, float* dv, Scores sc,
                     int64_t Dk, int64_t Dv) {
#ifdef TINYLM_FLASH_MMA
  extern __shared__ __align__(128) float smem[];
  float* Ks = smem;
  float* Vs = Ks + kTileFloats;
  float* Qs = Vs + kTileFloats;
  float* dYs = Qs + kTileFloats;
  float* Ss = dYs + kTileFloats;
  float* dPs = Ss + kTileFloats;
  float* lse_t = dPs + kTileFloats;
  float* delta_t = lse_t + kTile;
  const int64_t n = blockIdx.x, j0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t Tq = sc.m.Tq, Tk = sc.m.Tk;
  const int warp = threadIdx.x >> 5;
  const float* qn = q + n * Tq * Dk;
  const float* dyn = dy + n * Tq * Dv;
  load_tile(Ks, k + n * Tk * Dk, j0, Tk, Dk);
  load_tile(Vs, v + n * Tk * Dv, j0, Tk, Dv);
  Acc dk_acc[4], dv_acc[4];
  zero(dk_acc);
  zero(dv_acc);
  for (int64_t i0 = 0; i0 < Tq; i0 += kTile) {
    if (tile_key_limit(sc.m, n, i0) <= j0) continue;  // no query of the tile sees these keys
    __syncthreads();                                  // every warp is done with the last query tile
    load_tile(Qs, qn, i0, Tq, Dk);
    load_tile(dYs, dyn, i0, Tq, Dv);
    load_rows(lse_t, lse + n * Tq, i0, Tq);
    load_rows(delta_t, delta + n * Tq, i0, Tq);
    __syncthreads();
    strip_products(Ss + 16 * warp * kLd, Qs + 16 * warp * kLd, Ks, round8(Dk));
    strip_products(dPs + 16 * warp * kLd, dYs + 16 * warp * kLd, Vs, round8(Dv));
    __syncwarp();
    weights_and_grads(Ss, dPs, lse_t, delta_t, sc, n, i0, j0);
    __syncthreads();  // dv, dk of the warp's keys need every query row
    // dv[keys 16 w ..] += (P keep)^T dy ;  dk[keys 16 w ..] += dS^T q
    accumulate<false, true>(dv_acc, Ss + 16 * warp, dYs, kTile);
    accumulate<false, true>(dk_acc, dPs + 16 * warp, Qs, kTile);
  }
  __syncthreads();
  float* strip = Ss + 16 * warp * kLd;
  store(strip, dv_acc);
  __syncwarp();
  write_strip(dv + n * Tk * Dv, strip, j0 + 16 * warp, Tk, Dv, 1.0f);
  __syncwarp();
  store(strip, dk_acc);
  __syncwarp();
  write_strip(dk + n * Tk * Dk, strip, j0 + 16 * warp, Tk, Dk, sc.scale);
#else
  __trap();
#endif
}

// grid (N, query tiles): dq [N, Tq, Dk] of the block's 64 queries.
__global__ void __launch_bounds__(kBlock)
    query_grads_kernel(const float* dy, const float* q, const float* k, const float* v,
                       const float* lse, const float* delta, float* dq, Scores sc, int64_t Dk,
                       int64_t Dv) {
#ifdef TINYLM_FLASH_MMA
  extern __shared__ __align__(128) float smem[];
  float* Qs = smem;
  float* dYs = Qs + kTileFloats;
  float* Ks = dYs + kTileFloats;
  float* Vs = Ks + kTileFloats;
  float* Ss = Vs + kTileFloats;
  float* dPs = Ss + kTileFloats;
  float* lse_t = dPs + kTileFloats;
  float* delta_t = lse_t + kTile;
  const int64_t n = blockIdx.x, i0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t Tq = sc.m.Tq, Tk = sc.m.Tk;
  const int warp = threadIdx.x >> 5;
  const float* kn = k + n * Tk * Dk;
  const float* vn = v + n * Tk * Dv;
  load_tile(Qs, q + n * Tq * Dk, i0, Tq, Dk);
  load_tile(dYs, dy + n * Tq * Dv, i0, Tq, Dv);
  load_rows(lse_t, lse + n * Tq, i0, Tq);
  load_rows(delta_t, delta + n * Tq, i0, Tq);
  const int64_t limit = tile_key_limit(sc.m, n, i0);
  Acc dq_acc[4];
  zero(dq_acc);
  for (int64_t j0 = 0; j0 < limit; j0 += kTile) {
    __syncthreads();  // every warp is done with the last key tile
    load_tile(Ks, kn, j0, Tk, Dk);
    load_tile(Vs, vn, j0, Tk, Dv);
    __syncthreads();
    strip_products(Ss + 16 * warp * kLd, Qs + 16 * warp * kLd, Ks, round8(Dk));
    strip_products(dPs + 16 * warp * kLd, dYs + 16 * warp * kLd, Vs, round8(Dv));
    __syncwarp();
    weights_and_grads(Ss, dPs, lse_t, delta_t, sc, n, i0, j0);
    __syncwarp();
    accumulate<true, true>(dq_acc, dPs + 16 * warp * kLd, Ks, kTile);  // dq += dS k
  }
  float* strip = Ss + 16 * warp * kLd;
  __syncwarp();
  store(strip, dq_acc);
  __syncwarp();
  write_strip(dq + n * Tq * Dk, strip, i0 + 16 * warp, Tq, Dk, sc.scale);
#else
  __trap();
#endif
}

constexpr size_t kForwardShared = sizeof(float) * 4 * kTileFloats;
constexpr size_t kBackwardShared = sizeof(float) * (6 * kTileFloats + 2 * kTile);

// Allow the kernels more than 48 KiB of shared memory (once per program).
void allow_shared_memory() {
  static const bool done = [] {
    TINYLM_CUDA_CHECK(cudaFuncSetAttribute(
        forward_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int{kForwardShared}));
    TINYLM_CUDA_CHECK(cudaFuncSetAttribute(
        key_grads_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int{kBackwardShared}));
    TINYLM_CUDA_CHECK(cudaFuncSetAttribute(
        query_grads_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int{kBackwardShared}));
    return true;
  }();
  (void)done;
}

bool tensor_cores_here() {
  static const bool yes = [] {
    int device = 0, major = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
      return false;
    return major >= 8;
  }();
  return yes;
}

Scores scores_of(const attention::MaskView& m, float scale, float p, uint64_t key) {
  return {m, scale, p, p > 0.0f ? 1.0f / (1.0f - p) : 1.0f, key};
}

dim3 grid_of(int64_t N, int64_t T) {
  return dim3(static_cast<unsigned>(N), static_cast<unsigned>((T + kTile - 1) / kTile));
}

}  // namespace

namespace {
int g_enabled = -1;  // -1: not set yet (then TINYLM_CUDA_FLASH, else kOnByDefault)
}  // namespace

bool enabled() {
  if (g_enabled < 0) {
    const char* e = std::getenv("TINYLM_CUDA_FLASH");
    g_enabled = e ? std::string(e) != "0" : kOnByDefault;
  }
  return g_enabled == 1;
}

bool fits(const ops::AttentionShape& s) {
  return enabled() && matmul_precision() != ops::MatmulPrecision::kFp32 && s.Dk <= kDim &&
         s.Dv <= kDim && s.N <= INT32_MAX && (s.Tq + kTile - 1) / kTile <= 65535 &&
         (s.Tk + kTile - 1) / kTile <= 65535 && tensor_cores_here();
}

void forward(const float* q, const float* k, const float* v, float* y, float* lse,
             const ops::AttentionShape& s, float scale, const attention::MaskView& m, float p,
             uint64_t key) {
  allow_shared_memory();
  forward_kernel<<<grid_of(s.N, s.Tq), kBlock, kForwardShared>>>(
      q, k, v, y, lse, scores_of(m, scale, p, key), s.Dk, s.Dv);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void backward(const float* dy, const float* q, const float* k, const float* v, const float* y,
              const float* lse, float* dq, float* dk, float* dv, const ops::AttentionShape& s,
              float scale, const attention::MaskView& m, float p, uint64_t key) {
  allow_shared_memory();
  const int64_t rows = s.N * s.Tq;
  if (s.N == 0 || s.Tk == 0) return;  // the caller zeroed dq, dk, dv
  float* delta = scratch<float>(ScratchSlot::kRowDelta, rows);
  if (rows > 0) {
    delta_kernel<<<blocks_for(rows, kRowsPerBlock), 32 * kRowsPerBlock>>>(dy, y, delta, s.Dv, rows);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  const Scores sc = scores_of(m, scale, p, key);
  {
    key_grads_kernel<<<grid_of(s.N, s.Tk), kBlock, kBackwardShared>>>(dy, q, k, v, lse, delta, dk,
                                                                      dv, sc, s.Dk, s.Dv);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  if (s.Tq == 0) return;
  query_grads_kernel<<<grid_of(s.N, s.Tq), kBlock, kBackwardShared>>>(dy, q, k, v, lse, delta, dq,
                                                                      sc, s.Dk, s.Dv);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda::flash

namespace tinylm::cuda {

void set_flash_attention(bool on) {
  flash::g_enabled = on ? 1 : 0;
}

}  // namespace tinylm::cuda
