// ByteCursor: reads little-endian integers and LEB128 varints (as protocol buffers and
// LevelDB write them) from a span of bytes, never past its end. Running out of bytes, or a
// varint longer than its type, throws InputError("<what>: ..."), `what` naming the file
// and the part being read ("model.ckpt.index: block at offset 0").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "util/error.h"

namespace tinylm {

class ByteCursor {
 public:
  ByteCursor(std::string_view bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  bool at_end() const { return pos_ == bytes_.size(); }

  // A varint of at most 10 bytes whose value fits 64 bits.
  uint64_t varint64() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      require(!at_end(), [&] { return what_ + ": truncated varint"; });
      const uint64_t byte = static_cast<unsigned char>(bytes_[pos_++]);
      require(shift < 63 || byte <= 1, [&] { return what_ + ": varint overflows 64 bits"; });
      value |= (byte & 0x7Fu) << shift;
      if (byte < 0x80) return value;
    }
    throw InputError(what_ + ": varint longer than 10 bytes");
  }

  // A varint of at most 5 bytes whose value fits 32 bits (LevelDB's lengths).
  uint32_t varint32() {
    const size_t start = pos_;
    const uint64_t value = varint64();
    require(pos_ - start <= 5 && value <= UINT32_MAX,
            [&] { return what_ + ": varint32 overflows 32 bits"; });
    return static_cast<uint32_t>(value);
  }

  uint32_t fixed32() { return static_cast<uint32_t>(fixed(4)); }
  uint64_t fixed64() { return fixed(8); }

  // The next n bytes.
  std::string_view bytes(uint64_t n) {
    require(n <= remaining(), [&] {
      return what_ + ": truncated (" + std::to_string(n) + " bytes needed, " +
             std::to_string(remaining()) + " left)";
    });
    const std::string_view out = bytes_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return out;
  }

 private:
  uint64_t fixed(int n) {
    const std::string_view b = bytes(static_cast<uint64_t>(n));
    uint64_t value = 0;
    for (int i = n - 1; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(b[i]);
    return value;
  }

  std::string_view bytes_;
  std::string what_;
  size_t pos_ = 0;
};

}  // namespace tinylm
