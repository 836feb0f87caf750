// Mixed-precision matrix products on the CPU, as PyTorch's autocast computes them in bf16:
// the operands are float32 in memory, rounded to bf16 (nearest, ties to even), multiplied
// with float32 sums into a float32 result. Row-major, the contract of ops/matmul.h:
//   C [M, N] = alpha * op(A) [M, K] @ op(B) [K, N] + beta * C
//   (A stored [M, K], or [K, M] when trans_a; B stored [K, N], or [N, K] when trans_b;
//    beta == 0 ignores the old C; K == 0 gives C = beta C)
// Fast: oneDNN's matmul primitive (bf16 source and weights, f32 destination), which picks
// AMX, AVX512_BF16 or an emulation on AVX-512 by itself; one primitive per shape, made on
// first use and kept. The operands are rounded by ops::to_bf16 into per-thread buffers.
// Where oneDNN has no bf16 matmul (a CPU without AVX-512, a build without oneDNN), the
// operands are rounded to bf16 values in float32 and multiplied by ops::matmul's sgemm:
// the same arithmetic (a product of two bf16 values is exact in float32), slower.
// Reference: operands rounded to bf16, products summed in float64.
#pragma once
#include <cstdint>
#include <string>

#include "ops/precision.h"

namespace tinylm::ops {

void matmul_bf16(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                 bool trans_a = false, bool trans_b = false, float alpha = 1.0f, float beta = 0.0f);

// What computes matmul_bf16 on this CPU, e.g. "oneDNN brg:avx512_core_bf16 (AVX512_BF16)",
// "oneDNN brg:avx512_core_amx_bf16 (AMX)", or "sgemm on bf16-rounded operands (this CPU
// has no bf16 matmul in oneDNN)": oneDNN's name of the kernel it picked for a probe shape.
const std::string& matmul_bf16_kernel();

// The precision of the CPU backend's linear layers (linear_forward, linear_backward) from
// now on: fp32 (the default: float32 multiply-adds, bit for bit as before) or bf16 (their
// three products through matmul_bf16). InputError for tf32, which the CPU does not have.
void set_cpu_matmul_precision(MatmulPrecision p);
MatmulPrecision cpu_matmul_precision();

namespace ref {
void matmul_bf16(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                 bool trans_a = false, bool trans_b = false, float alpha = 1.0f, float beta = 0.0f);
}  // namespace ref

}  // namespace tinylm::ops
