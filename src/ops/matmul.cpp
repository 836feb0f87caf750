// Matrix products and the linear layer, fast versions (oneDNN sgemm, or OpenBLAS sgemm
// when tinylm was built without oneDNN).
//   matmul:  C [M, N] = alpha * op(A) [M, K] @ op(B) [K, N] + beta * C   (row-major)
//   linear:  x [N, C], W [OC, C], b [OC] -> y [N, OC] = x @ W^T + b
//            backward: dy [N, OC] -> dx [N, C] = dy @ W, dW [OC, C] += dy^T @ x,
//                      db [OC] += sum over rows of dy
//            at bf16 (set_cpu_matmul_precision, ops/matmul_bf16.h) the three products go
//            through matmul_bf16, every row included; the bias and db stay float32
// oneDNN chooses its kernel (AVX-512, AVX2, AMX) from CPUID at run time; OpenBLAS follows
// OPENBLAS_CORETYPE when that is set (this environment pins it to AVX2), which is why
// oneDNN is preferred (docs/performance.md). Both are OpenMP builds sharing our libgomp
// thread pool: they use omp_get_max_threads() threads, and run single-threaded when called
// from inside one of our parallel regions.
#include "ops/matmul.h"

#include <cblas.h>
#if TINYLM_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "ops/matmul_bf16.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

// BLAS takes int dimensions (blasint); refuse what would silently overflow.
// (The message is built only on failure: a matmul allocates nothing.)
blasint blas_dim(int64_t n, const char* what) {
  if (n < 0 || n > INT_MAX)
    throw InputError(std::string("matmul: dimension ") + what + " = " + std::to_string(n) +
                     " is out of range for BLAS");
  return static_cast<blasint>(n);
}

// Column sums of a [rows, cols] matrix added into out [cols]. Parallel over blocks of
// columns, each summed over the rows in order, so the result does not depend on the
// thread count.
void add_column_sums(const float* a, float* out, int64_t rows, int64_t cols) {
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (cols + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (blocks > 1 && rows * cols >= (1 << 15))
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t c0 = blk * kBlock, c1 = std::min(cols, c0 + kBlock);
    float acc[kBlock] = {};
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = a + r * cols;
#pragma omp simd
      for (int64_t c = c0; c < c1; ++c) acc[c - c0] += row[c];
    }
    for (int64_t c = c0; c < c1; ++c) out[c] += acc[c - c0];
  }
}

}  // namespace

void matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K, bool trans_a,
            bool trans_b, float alpha, float beta) {
  const blasint m = blas_dim(M, "M"), n = blas_dim(N, "N"), k = blas_dim(K, "K");
  if (m == 0 || n == 0) return;
  if (k == 0) {  // empty product: C = beta * C (BLAS would reject the zero leading dims)
    for (int64_t i = 0; i < M * N; ++i) C[i] = beta == 0.0f ? 0.0f : beta * C[i];
    return;
  }
  const blasint lda = trans_a ? m : k, ldb = trans_b ? k : n;
#if TINYLM_HAVE_DNNL
  const dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha,
                                          A, lda, B, ldb, beta, C, n);
  if (status != dnnl_success) {
    throw std::runtime_error("matmul: oneDNN sgemm failed (status " + std::to_string(status) +
                             ") for M=" + std::to_string(M) + " N=" + std::to_string(N) +
                             " K=" + std::to_string(K));
  }
#else
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, n);
#endif
}

const char* matmul_backend() {
#if TINYLM_HAVE_DNNL
  return "oneDNN sgemm";
#else
  return "OpenBLAS sgemm";
#endif
}

namespace {

// The linear layer's products: float32 (bit for bit as before bf16 existed) or bf16.
void linear_product(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                    bool trans_a, bool trans_b, float beta) {
  if (cpu_matmul_precision() == MatmulPrecision::kBf16)
    return matmul_bf16(A, B, C, M, N, K, trans_a, trans_b, 1.0f, beta);
  matmul(A, B, C, M, N, K, trans_a, trans_b, 1.0f, beta);
}

}  // namespace

void linear_forward(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                    int64_t OC) {
  const bool bf16 = cpu_matmul_precision() == MatmulPrecision::kBf16;
  if (N <= kRowInvariantMaxRows && !bf16) return linear_forward_rows(x, W, b, y, N, C, OC);
  if (b) {  // y = b broadcast over rows, then y += x @ W^T
#pragma omp parallel for schedule(static) if (N * OC >= (1 << 15))
    for (int64_t i = 0; i < N; ++i) std::copy(b, b + OC, y + i * OC);
  }
  linear_product(x, W, y, N, OC, C, false, /*trans_b=*/true, b ? 1.0f : 0.0f);
}

void linear_backward(const float* dy, const float* x, const float* W, float* dx, float* dW,
                     float* db, int64_t N, int64_t C, int64_t OC) {
  if (dx) linear_product(dy, W, dx, N, C, OC, false, false, 0.0f);             // [N,OC] @ [OC,C]
  if (dW) linear_product(dy, x, dW, OC, C, N, /*trans_a=*/true, false, 1.0f);  // [OC,N] @ [N,C]
  if (db) add_column_sums(dy, db, N, OC);
}

}  // namespace tinylm::ops
