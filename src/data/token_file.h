// nanoGPT's .bin token files (prepare.py: np.array(ids, dtype=np.uint16).tofile(path)):
// the ids as flat little-endian integers, no header; 2 bytes per token (uint16) for a
// vocabulary of up to 65,536 ids, as nanoGPT and llm.c write them, and 4 (uint32) for a
// larger one (Llama 3's 128,256, Qwen's 151,669), as np.uint32 would write them. The
// width is not in the file: `tinylm prepare` names it in meta.json ("dtype", numpy's
// name), and a meta.json without one means uint16 (data/dataset.h).
//
//   write: every id must fit the width, else InputError naming its index and value.
//   read:  a byte count that is not a whole number of ids is an InputError (truncated or
//          not a token file); an id >= vocab_size is an InputError naming its index.
// Files are written atomically (temp file + rename).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

enum class TokenWidth { kUint16 = 2, kUint32 = 4 };  // bytes per id

// uint16 for vocabularies of up to 65,536 ids, uint32 above.
TokenWidth token_width_for(int64_t vocab_size);
const char* token_width_name(TokenWidth w);  // "uint16", "uint32"
// InputError naming `where` and the two names for anything else.
TokenWidth parse_token_width(std::string_view name, const std::string& where);

// In memory: ids -> bytes, bytes -> ids. `what` names the data in error messages.
std::string encode_tokens(std::span<const int32_t> ids, TokenWidth w);
std::vector<int32_t> decode_tokens(std::string_view bytes, TokenWidth w, const std::string& what,
                                   int64_t vocab_size);
inline std::string encode_uint16_tokens(std::span<const int32_t> ids) {
  return encode_tokens(ids, TokenWidth::kUint16);
}

void write_token_file(const std::string& path, std::span<const int32_t> ids,
                      TokenWidth w = TokenWidth::kUint16);
std::vector<int32_t> read_token_file(const std::string& path, int64_t vocab_size = 65536,
                                     TokenWidth w = TokenWidth::kUint16);

}  // namespace tinylm
