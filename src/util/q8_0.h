// ggml's Q8_0 block, as GGUF files store it and as tinylm's 8-bit decoding reads it:
// 32 values in 34 bytes, a half (IEEE binary16) scale d, then 32 int8 q; value i is d * q[i].
// Quantising as ggml's reference quantiser does: d = max|x| / 127 over the block, q = x / d
// rounded half away from zero (0 where d is 0), the half of d stored. q stays in
// [-127, 127].
#pragma once
#include <cstdint>

namespace tinylm {

inline constexpr int64_t kQ8Block = 32;  // values per Q8_0 block

struct BlockQ8_0 {
  uint16_t d;          // the scale, as a half
  int8_t q[kQ8Block];  // the values, in units of d
};
static_assert(sizeof(BlockQ8_0) == 34, "ggml's block_q8_0 is 34 bytes");

inline constexpr int64_t kQ8BlockBytes = sizeof(BlockQ8_0);

// x [32] -> one block.
void quantize_q8_0_block(const float* x, BlockQ8_0* out);
// One block -> out [32].
void dequantize_q8_0_block(const BlockQ8_0& block, float* out);

}  // namespace tinylm
