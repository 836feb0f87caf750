#include "tokenizer/stream_decoder.h"

#include "tokenizer/bpe_utf8_lossy.h"

namespace tinylm {

size_t utf8_unfinished_tail(const std::string& bytes) {
  const size_t n = bytes.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<unsigned char>(bytes[n - back]);
    if (b >= 0x80 && b <= 0xBF) continue;  // a continuation byte: look further back
    const size_t length = b >= 0xF0 && b <= 0xF4   ? 4
                          : b >= 0xE0 && b <= 0xEF ? 3
                          : b >= 0xC2 && b <= 0xDF ? 2
                                                   : 1;
    return back < length ? back : 0;
  }
  return 0;
}

std::string StreamDecoder::add(int32_t id) {
  if (!tok_.spells(id)) return "";  // a model's padding id: no text, and not first
  pending_ += tok_.decode_piece(id, first_);
  first_ = false;
  const size_t ready = pending_.size() - utf8_unfinished_tail(pending_);
  std::string text = utf8_lossy(std::string_view(pending_).substr(0, ready));
  pending_.erase(0, ready);
  return text;
}

std::string decode_generated(const Tokenizer& tok, const std::vector<int32_t>& ids,
                             bool after_text) {
  StreamDecoder decoder(tok, after_text);
  std::string text;
  for (const int32_t id : ids) text += decoder.add(id);
  return text + decoder.finish();
}

std::string StreamDecoder::finish() {
  std::string text = utf8_lossy(pending_);
  pending_.clear();
  return text;
}

}  // namespace tinylm
