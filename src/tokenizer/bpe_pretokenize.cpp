#include "tokenizer/bpe_pretokenize.h"

namespace tinylm {

void bpe_throw_invalid_utf8(size_t pos) {
  throw InvalidUtf8Error(pos, "invalid UTF-8 at byte " + std::to_string(pos));
}

std::vector<std::string_view> gpt2_pieces(std::string_view text) {
  std::vector<std::string_view> out;
  gpt2_split(text, [&](std::string_view piece) { out.push_back(piece); });
  return out;
}

}  // namespace tinylm
