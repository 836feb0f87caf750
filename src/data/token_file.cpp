#include "data/token_file.h"

#include "util/error.h"
#include "util/files.h"

namespace tinylm {

std::string encode_uint16_tokens(std::span<const int32_t> ids) {
  std::string bytes(ids.size() * 2, '\0');
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    require(id >= 0 && id <= 0xFFFF, "cannot write token " + std::to_string(i) + " = " +
                                         std::to_string(id) +
                                         " as uint16 (ids must be in [0, 65536))");
    bytes[2 * i] = static_cast<char>(id & 0xFF);
    bytes[2 * i + 1] = static_cast<char>(id >> 8);
  }
  return bytes;
}

std::vector<int32_t> decode_uint16_tokens(std::string_view bytes, const std::string& what,
                                          int64_t vocab_size) {
  require(bytes.size() % 2 == 0, what + ": " + std::to_string(bytes.size()) +
                                     " bytes is an odd count; a uint16 token file has 2 "
                                     "bytes per token (truncated?)");
  std::vector<int32_t> ids(bytes.size() / 2);
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto lo = static_cast<unsigned char>(bytes[2 * i]);
    const auto hi = static_cast<unsigned char>(bytes[2 * i + 1]);
    ids[i] = static_cast<int32_t>(lo | (hi << 8));
    require(ids[i] < vocab_size, what + ": token " + std::to_string(i) + " = " +
                                     std::to_string(ids[i]) + " is outside the vocabulary [0, " +
                                     std::to_string(vocab_size) + ")");
  }
  return ids;
}

void write_token_file(const std::string& path, std::span<const int32_t> ids) {
  write_file_atomic(path, encode_uint16_tokens(ids));
}

std::vector<int32_t> read_token_file(const std::string& path, int64_t vocab_size) {
  return decode_uint16_tokens(read_file(path), path, vocab_size);
}

}  // namespace tinylm
