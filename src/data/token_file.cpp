#include "data/token_file.h"

#include "util/error.h"
#include "util/files.h"

namespace tinylm {

TokenWidth token_width_for(int64_t vocab_size) {
  return vocab_size <= 65536 ? TokenWidth::kUint16 : TokenWidth::kUint32;
}

const char* token_width_name(TokenWidth w) {
  return w == TokenWidth::kUint16 ? "uint16" : "uint32";
}

TokenWidth parse_token_width(std::string_view name, const std::string& where) {
  if (name == "uint16") return TokenWidth::kUint16;
  if (name == "uint32") return TokenWidth::kUint32;
  throw InputError(where + ": dtype \"" + std::string(name) + "\" is not uint16 or uint32");
}

std::string encode_tokens(std::span<const int32_t> ids, TokenWidth w) {
  const auto width = static_cast<size_t>(w);
  const int64_t limit = w == TokenWidth::kUint16 ? 65536 : 4294967296;
  std::string bytes(ids.size() * width, '\0');
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    require(id >= 0 && id < limit, [&] {
      return "cannot write token " + std::to_string(i) + " = " + std::to_string(id) + " as " +
             token_width_name(w) + " (ids must be in [0, " + std::to_string(limit) + "))";
    });
    for (size_t b = 0; b < width; ++b)
      bytes[width * i + b] = static_cast<char>((static_cast<uint32_t>(id) >> (8 * b)) & 0xFF);
  }
  return bytes;
}

std::vector<int32_t> decode_tokens(std::string_view bytes, TokenWidth w, const std::string& what,
                                   int64_t vocab_size) {
  const auto width = static_cast<size_t>(w);
  require(bytes.size() % width == 0, [&] {
    return what + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
           token_width_name(w) + " ids (" + std::to_string(width) + " bytes per token; truncated?)";
  });
  std::vector<int32_t> ids(bytes.size() / width);
  for (size_t i = 0; i < ids.size(); ++i) {
    uint32_t id = 0;
    for (size_t b = 0; b < width; ++b)
      id |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[width * i + b])) << (8 * b);
    require(id < static_cast<uint64_t>(vocab_size), [&] {
      return what + ": token " + std::to_string(i) + " = " + std::to_string(id) +
             " is outside the vocabulary [0, " + std::to_string(vocab_size) + ")";
    });
    ids[i] = static_cast<int32_t>(id);
  }
  return ids;
}

void write_token_file(const std::string& path, std::span<const int32_t> ids, TokenWidth w) {
  write_file_atomic(path, encode_tokens(ids, w));
}

std::vector<int32_t> read_token_file(const std::string& path, int64_t vocab_size, TokenWidth w) {
  return decode_tokens(read_file(path), w, path, vocab_size);
}

}  // namespace tinylm
