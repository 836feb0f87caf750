// Generated text shown as it grows, up to a stop text (one of several): each add(id)
// returns the text that is safe to show now, decoding only the new id (time linear in the
// output). Held back are an unfinished UTF-8 character (tokenizer/stream_decoder.h) and
// the end of the text while it is the start of a stop text. Once a stop text has
// appeared, stopped() is true: everything before it has been returned, and neither it nor
// anything after it ever is. The concatenation of everything returned, finish()
// included, is tok.decode(ids) cut before the first occurrence of any stop text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/stream_decoder.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

class StopTextStream {
 public:
  // stop "": never stops; only unfinished characters are held back. after_text: the ids
  // continue a text already shown (StreamDecoder).
  StopTextStream(const Tokenizer& tok, std::string stop, bool after_text = false);
  // Stops at the first of stops (empty strings are ignored; none: never stops).
  StopTextStream(const Tokenizer& tok, std::vector<std::string> stops, bool after_text = false);

  // The text that id makes safe to show (possibly empty; always empty once stopped).
  std::string add(int32_t id);
  // What is still held back, at the end of generation (empty once stopped).
  std::string finish();
  bool stopped() const { return stopped_; }

 private:
  // Appends decoded text; returns what is safe to show (all of it when last).
  std::string take(const std::string& decoded, bool last);
  // Bytes at the end of text_ that are a proper start of a stop text (the longest).
  size_t partial_stop_at_end() const;
  std::string release(size_t upto);  // text_[shown_, upto), then shown_ = upto

  StreamDecoder decoder_;
  std::vector<std::string> stops_;
  std::string text_;  // the decoded text so far
  size_t shown_ = 0;  // bytes of text_ returned
  bool stopped_ = false;
};

}  // namespace tinylm
