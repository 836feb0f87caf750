#include "generate/stop_text_stream.h"

#include <algorithm>
#include <utility>

namespace tinylm {

StopTextStream::StopTextStream(const Tokenizer& tok, std::string stop)
    : decoder_(tok), stop_(std::move(stop)) {}

std::string StopTextStream::add(int32_t id) {
  if (stopped_) return "";
  return take(decoder_.add(id), /*last=*/false);
}

std::string StopTextStream::finish() {
  if (stopped_) return "";
  return take(decoder_.finish(), /*last=*/true);
}

std::string StopTextStream::take(const std::string& decoded, bool last) {
  text_ += decoded;
  if (stop_.empty()) return release(text_.size());
  // An occurrence starting before shown_ was whole when shown_ was set (keep bytes were
  // held back behind it), and found then: search from shown_.
  const size_t at = text_.find(stop_, shown_);
  if (at != std::string::npos) {
    stopped_ = true;
    return release(at);
  }
  const size_t keep = last ? 0 : stop_.size() - 1;  // the longest start of stop_ to hold
  return release(text_.size() >= keep ? text_.size() - keep : 0);
}

std::string StopTextStream::release(size_t upto) {
  upto = std::min(upto, text_.size());
  if (upto <= shown_) return "";
  std::string out = text_.substr(shown_, upto - shown_);
  shown_ = upto;
  return out;
}

}  // namespace tinylm
