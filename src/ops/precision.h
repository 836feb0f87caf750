// The arithmetic of float32 matrix products, as PyTorch's
// torch.set_float32_matmul_precision names it: the operands and results stay float32 in
// memory (and the weights, the master weights, float32), only the products change.
//   fp32  float32 multiply-adds: exact mode, what the CPU does
//   tf32  tensor cores, operands rounded to TF32 (10-bit mantissa), float32 sums
//   bf16  tensor cores, operands rounded to bf16 (7-bit mantissa), float32 sums: speed mode
// The CPU backend computes fp32 and bf16 (its linear layers, ops/matmul_bf16.h: oneDNN);
// the cuda backend all three (cuBLAS compute types).
#pragma once
#include <string_view>

namespace tinylm::ops {

enum class MatmulPrecision { kFp32, kTf32, kBf16 };

const char* precision_name(MatmulPrecision p);  // "fp32", "tf32", "bf16"
// InputError naming the value and the choices for anything else.
MatmulPrecision parse_precision(std::string_view name);

}  // namespace tinylm::ops
