// Decoding generated ids one at a time, in time linear in the text: each id adds only its
// own bytes (Tokenizer::decode_piece); the complete part is returned at once, and an
// unfinished UTF-8 sequence at the end is held back until later bytes complete it (or
// finish() gives it up as U+FFFD). The concatenation of everything returned equals
// tok.decode(all ids), where ids the tokenizer does not spell (a model's padding,
// Tokenizer::spells) add nothing; after_text: the ids continue a text already shown (a prompt), so
// the first one is joined to it as any later one (a word tokenizer's space before it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace tinylm {

class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tok, bool after_text = false)
      : tok_(tok), first_(!after_text) {}
  // The text that id completes (possibly empty).
  std::string add(int32_t id);
  // What is still held back.
  std::string finish();

 private:
  const Tokenizer& tok_;
  std::string pending_;  // bytes not yet returned
  bool first_;
};

// The text of generated ids, as a StreamDecoder gives it: decode(ids) without the ids the
// tokenizer does not spell; after_text: the first id joined to a text before it as any
// later one (for BPE and char tokenizers no different). For "prompt + what followed".
std::string decode_generated(const Tokenizer& tok, const std::vector<int32_t>& ids,
                             bool after_text);

// Length of an unfinished UTF-8 sequence at the end of bytes (0 when none): a lead byte
// in the last 3 bytes followed by fewer continuation bytes than it announces.
size_t utf8_unfinished_tail(const std::string& bytes);

}  // namespace tinylm
