// CRC-32C (Castagnoli): the checksum of LevelDB tables and TensorFlow checkpoints.
//
// Polynomial 0x1EDC6F41 (reflected 0x82F63B78), initial value and final xor 0xFFFFFFFF:
//   crc32c("123456789") == 0xE3069283, crc32c(32 zero bytes) == 0x8A9136AA.
// Files that store a CRC next to the bytes it covers store it "masked" (rotated right by 15
// bits plus a constant), so that the CRC of a string holding CRCs stays well mixed:
//   mask(c) = ((c >> 15) | (c << 17)) + 0xA282EAD8
#pragma once
#include <cstdint>
#include <string_view>

namespace tinylm {

// The CRC-32C of `bytes` continued from `crc`, the CRC of the bytes before them:
// crc32c_extend(crc32c(a), b) == crc32c(a + b).
uint32_t crc32c_extend(uint32_t crc, std::string_view bytes);

inline uint32_t crc32c(std::string_view bytes) {
  return crc32c_extend(0, bytes);
}

inline constexpr uint32_t kCrc32cMaskDelta = 0xA282EAD8u;

inline uint32_t crc32c_mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kCrc32cMaskDelta;
}

inline uint32_t crc32c_unmask(uint32_t masked) {
  const uint32_t rotated = masked - kCrc32cMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace tinylm
