// Bytes -> valid UTF-8, replacing each maximal invalid subsequence with one U+FFFD, as
// Rust's String::from_utf8_lossy, Python's bytes.decode(errors="replace") and the WHATWG
// TextDecoder do (Unicode's "maximal subpart" practice). tiktoken's decode is this.
#pragma once
#include <string>
#include <string_view>

namespace tinylm {

std::string utf8_lossy(std::string_view bytes);

}  // namespace tinylm
