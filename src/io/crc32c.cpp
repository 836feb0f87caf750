#include "io/crc32c.h"

#include <array>

namespace tinylm {

namespace {

constexpr uint32_t kReflectedPolynomial = 0x82F63B78u;

// kTables[k][b]: the CRC register after feeding byte b followed by k zero bytes; reading 8
// bytes per step with 8 tables ("slicing by 8") is several times faster than one table.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kReflectedPolynomial : 0u);
    t[0][b] = crc;
  }
  for (size_t k = 1; k < 8; ++k)
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  return t;
}

constexpr Tables kTables = make_tables();

uint32_t byte_at(const unsigned char* p, size_t i) {
  return p[i];
}

}  // namespace

uint32_t crc32c_extend(uint32_t crc, std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  uint32_t c = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    const uint32_t lo =
        c ^ (byte_at(p, 0) | byte_at(p, 1) << 8 | byte_at(p, 2) << 16 | byte_at(p, 3) << 24);
    c = kTables[7][lo & 0xFFu] ^ kTables[6][(lo >> 8) & 0xFFu] ^ kTables[5][(lo >> 16) & 0xFFu] ^
        kTables[4][lo >> 24] ^ kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^
        kTables[0][p[7]];
  }
  for (; n > 0; ++p, --n) c = (c >> 8) ^ kTables[0][(c ^ *p) & 0xFFu];
  return ~c;
}

}  // namespace tinylm
