#include "tokenizer/bpe_utf8_lossy.h"

namespace tinylm {

namespace {

// The allowed range of the second byte after lead byte b0 (Unicode Table 3-7);
// returns the sequence length, or 0 when b0 cannot start a sequence.
int sequence_rule(unsigned char b0, unsigned char* lo, unsigned char* hi) {
  *lo = 0x80, *hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) return 2;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (b0 == 0xE0) *lo = 0xA0;
    if (b0 == 0xED) *hi = 0x9F;
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (b0 == 0xF0) *lo = 0x90;
    if (b0 == 0xF4) *hi = 0x8F;
    return 4;
  }
  return 0;
}

}  // namespace

std::string utf8_lossy(std::string_view bytes) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(bytes.size());
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    if (s[i] < 0x80) {
      out.push_back(static_cast<char>(s[i++]));
      continue;
    }
    unsigned char lo, hi;
    const int len = sequence_rule(s[i], &lo, &hi);
    if (len == 0) {  // a byte that never starts a character: one U+FFFD for it alone
      out += kReplacement;
      ++i;
      continue;
    }
    // Take continuation bytes while they are valid; a complete sequence is copied, a
    // truncated one (the maximal subpart) becomes one U+FFFD.
    int k = 1;
    while (k < len && i + k < n) {
      const unsigned char b = s[i + k];
      const bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
      if (!ok) break;
      ++k;
    }
    if (k == len) {
      out.append(bytes.substr(i, len));
    } else {
      out += kReplacement;
    }
    i += k;
  }
  return out;
}

}  // namespace tinylm
