// The tensor types of ggml (llama.cpp's tensor library) that tinylm reads and writes in
// GGUF files (io/gguf.h), and their conversion to and from float32.
//   F32   4 bytes per value
//   F16   IEEE half, 2 bytes (util/float16.h: nearest, ties to even)
//   BF16  bfloat16, 2 bytes (util/float16.h)
//   Q8_0  blocks of 32 values, 34 bytes each (util/q8_0.h: ggml's block and quantiser)
// The numbers are ggml's (enum ggml_type), so that files are interchangeable.
#pragma once
#include <cstdint>
#include <string>

#include "util/q8_0.h"  // the Q8_0 block (kQ8Block values, kQ8BlockBytes bytes)

namespace tinylm {

enum class GgmlType : uint32_t { kF32 = 0, kF16 = 1, kQ8_0 = 8, kBF16 = 30 };

// Whether tinylm reads and writes this ggml type number.
bool ggml_type_known(uint32_t type);
// "F32", "F16", "BF16", "Q8_0"; "type <n>" for a number tinylm does not know.
std::string ggml_type_name(uint32_t type);
// The type named "f32", "f16", "bf16" or "q8_0" (any case); InputError naming the value.
GgmlType parse_ggml_type(const std::string& name);
// Values per block: 32 for Q8_0, 1 for the others.
int64_t ggml_block_size(GgmlType type);
// Bytes of n values (n a whole number of blocks: checked by the caller).
int64_t ggml_bytes(GgmlType type, int64_t n);

// n float32 values as the bytes of `type` (n a whole number of blocks).
std::string ggml_from_float(GgmlType type, const float* x, int64_t n);
// The bytes of n values of `type` back to float32, into out [n].
void ggml_to_float(GgmlType type, const char* bytes, int64_t n, float* out);

}  // namespace tinylm
