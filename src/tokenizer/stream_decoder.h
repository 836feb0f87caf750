// Decoding generated ids one at a time, in time linear in the text: each id adds only its
// own bytes (Tokenizer::decode_piece); the complete part is returned at once, and an
// unfinished UTF-8 sequence at the end is held back until later bytes complete it (or
// finish() gives it up as U+FFFD). The concatenation of everything returned equals
// tok.decode(all ids).
#pragma once
#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"

namespace tinylm {

class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tok) : tok_(tok) {}
  // The text that id completes (possibly empty).
  std::string add(int32_t id);
  // What is still held back.
  std::string finish();

 private:
  const Tokenizer& tok_;
  std::string pending_;  // bytes not yet returned
  bool first_ = true;
};

// Length of an unfinished UTF-8 sequence at the end of bytes (0 when none): a lead byte
// in the last 3 bytes followed by fewer continuation bytes than it announces.
size_t utf8_unfinished_tail(const std::string& bytes);

}  // namespace tinylm
