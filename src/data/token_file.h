// nanoGPT's .bin token files (prepare.py: np.array(ids, dtype=np.uint16).tofile(path)):
// the ids as flat little-endian uint16, 2 bytes per token, no header.
//
//   write: every id must be in [0, 65536), else InputError naming its index and value
//          (a vocabulary as large as GPT-2's 50,257 fits; larger ones do not).
//   read:  an odd byte count is an InputError (truncated or not a token file); with
//          vocab_size given, an id >= vocab_size is an InputError naming its index.
// Files are written atomically (temp file + rename).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

// In memory: ids -> bytes, bytes -> ids. `what` names the data in error messages.
std::string encode_uint16_tokens(std::span<const int32_t> ids);
std::vector<int32_t> decode_uint16_tokens(std::string_view bytes, const std::string& what,
                                          int64_t vocab_size = 65536);

void write_token_file(const std::string& path, std::span<const int32_t> ids);
std::vector<int32_t> read_token_file(const std::string& path, int64_t vocab_size = 65536);

}  // namespace tinylm
