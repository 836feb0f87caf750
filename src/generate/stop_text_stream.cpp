#include "generate/stop_text_stream.h"

#include <algorithm>
#include <utility>

namespace tinylm {

StopTextStream::StopTextStream(const Tokenizer& tok, std::string stop, bool after_text)
    : StopTextStream(tok, std::vector<std::string>{std::move(stop)}, after_text) {}

StopTextStream::StopTextStream(const Tokenizer& tok, std::vector<std::string> stops,
                               bool after_text)
    : decoder_(tok, after_text) {
  for (std::string& s : stops)
    if (!s.empty()) stops_.push_back(std::move(s));
}

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
  // An occurrence starting before shown_ would have been held back (its start was at the
  // end then) and found since: search from shown_.
  size_t first = std::string::npos;
  for (const std::string& stop : stops_) first = std::min(first, text_.find(stop, shown_));
  if (first != std::string::npos) {
    stopped_ = true;
    return release(first);
  }
  return release(text_.size() - (last ? 0 : partial_stop_at_end()));
}

size_t StopTextStream::partial_stop_at_end() const {
  size_t longest = 0;
  for (const std::string& stop : stops_)
    for (size_t k = std::min(stop.size() - 1, text_.size()); k > longest; --k)
      if (text_.compare(text_.size() - k, k, stop, 0, k) == 0) {
        longest = k;
        break;
      }
  return longest;
}

std::string StopTextStream::release(size_t upto) {
  upto = std::min(upto, text_.size());
  if (upto <= shown_) return "";
  std::string out = text_.substr(shown_, upto - shown_);
  shown_ = upto;
  return out;
}

}  // namespace tinylm
