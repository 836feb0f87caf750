// cuBLAS, loaded by the first matrix product on a GPU rather than linked (plain C++). A
// linked cuBLAS is loaded into every tinylm process at start, and its libraries' static
// initialisers cost about a second on some hosts (on a Zen 5 VM, 70 % of `tinylm
// --version`'s 1.4 s went to libcublasLt's), on every command, with a GPU or without.
// Here the functions src/cuda calls are resolved by name from libcublas.so.<major> on
// first use: the one the dynamic loader finds (LD_LIBRARY_PATH, ld.so.cache), else the
// build's toolkit's.
#pragma once
#include <cublas_v2.h>

namespace tinylm::cuda {

// cublasGemmEx and cublasGemmStridedBatchedEx are overloaded in C++ (the header adds
// inline forms whose compute type is a cudaDataType): these are the library's own.
using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                  int, const void* alpha, const void* A, cudaDataType, int lda,
                                  const void* B, cudaDataType, int ldb, const void* beta, void* C,
                                  cudaDataType, int ldc, cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                                cublasOperation_t, int, int, int, const void* alpha,
                                                const void* A, cudaDataType, int lda,
                                                long long stride_a, const void* B, cudaDataType,
                                                int ldb, long long stride_b, const void* beta,
                                                void* C, cudaDataType, int ldc, long long stride_c,
                                                int batch, cublasComputeType_t, cublasGemmAlgo_t);
// (unevaluated: these name the header's declarations without linking the library)
static_assert(sizeof(static_cast<GemmEx>(&cublasGemmEx)) > 0, "cublasGemmEx's signature");
static_assert(sizeof(static_cast<GemmStridedBatchedEx>(&cublasGemmStridedBatchedEx)) > 0,
              "cublasGemmStridedBatchedEx's signature");

struct CublasLibrary {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasSetMathMode) set_math_mode;
  decltype(&cublasSetWorkspace_v2) set_workspace;
  decltype(&cublasGetStatusString) status_string;
  GemmEx gemm_ex;
  GemmStridedBatchedEx gemm_strided_batched_ex;
};

// The table, loaded on the first call; a runtime_error naming the library or the
// function when it cannot be.
const CublasLibrary& cublas();

}  // namespace tinylm::cuda
