#include "tokenizer/hf_json_unicode.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tokenizer/hf_json_unicode_tables.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

// Hangul syllables compose and decompose by arithmetic (Unicode 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
              kSCount = kLCount * kNCount;

// The combining class rank of cp: 0 for starters, else its order among the classes.
int ccc_rank(char32_t cp) {
  if (cp < 0x300) return 0;
  const auto& t = hf_tables::kCcc;
  const auto* it = std::lower_bound(std::begin(t), std::end(t), cp,
                                    [](const auto& e, char32_t c) { return e.cp < c; });
  return it != std::end(t) && it->cp == cp ? it->rank : 0;
}

void decompose_into(char32_t cp, std::vector<char32_t>& out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const int s = static_cast<int>(cp - kSBase);
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount) out.push_back(kTBase + s % kTCount);
    return;
  }
  const auto& t = hf_tables::kDecomp;
  const auto* it = std::lower_bound(std::begin(t), std::end(t), cp,
                                    [](const auto& e, char32_t c) { return e.cp < c; });
  if (it == std::end(t) || it->cp != cp) {
    out.push_back(cp);
    return;
  }
  out.insert(out.end(), hf_tables::kDecompData + it->offset,
             hf_tables::kDecompData + it->offset + it->length);
}

// The primary composite of (first, second), or 0 when there is none.
char32_t compose_pair(char32_t first, char32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase && second < kVBase + kVCount)
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  if (first >= kSBase && first < kSBase + kSCount && (first - kSBase) % kTCount == 0 &&
      second > kTBase && second < kTBase + kTCount)
    return first + (second - kTBase);
  const auto& t = hf_tables::kCompose;
  const auto* it =
      std::lower_bound(std::begin(t), std::end(t), std::pair(first, second),
                       [](const auto& e, const std::pair<char32_t, char32_t>& k) {
                         return e.first != k.first ? e.first < k.first : e.second < k.second;
                       });
  return it != std::end(t) && it->first == first && it->second == second ? it->composite : 0;
}

// Canonical ordering: each run of non-starters sorted by class, stably.
void reorder(std::vector<char32_t>& cps) {
  for (size_t i = 1; i < cps.size(); ++i) {
    const int r = ccc_rank(cps[i]);
    if (r == 0) continue;
    size_t j = i;
    while (j > 0 && ccc_rank(cps[j - 1]) > r) {
      std::swap(cps[j - 1], cps[j]);
      --j;
    }
  }
}

// Canonical composition (Unicode's sample algorithm): a character joins the last starter
// unless a character between them has class 0 or a class not below its own.
void compose(std::vector<char32_t>& cps) {
  if (cps.empty()) return;
  size_t starter = 0, kept = 1;
  int last = ccc_rank(cps[0]) == 0 ? 0 : 256;
  for (size_t i = 1; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    const int r = ccc_rank(c);
    const char32_t composite = compose_pair(cps[starter], c);
    if (composite && (last < r || last == 0)) {
      cps[starter] = composite;
      continue;
    }
    if (r == 0) starter = kept;
    last = r;
    cps[kept++] = c;
  }
  cps.resize(kept);
}

}  // namespace

std::string nfc(std::string_view text) {
  bool simple = true;
  for (const char b : text) simple &= static_cast<unsigned char>(b) < 0xCC;  // below U+0300
  if (simple) return std::string(text);
  std::vector<char32_t> cps;
  cps.reserve(text.size());
  for (const char32_t cp : utf8_decode(text)) decompose_into(cp, cps);
  reorder(cps);
  compose(cps);
  return utf8_encode(cps);
}

const char* pcre_letter_class() {
  return hf_tables::kLetter;
}
const char* pcre_number_class() {
  return hf_tables::kNumber;
}
const char* pcre_js_space_class() {
  return hf_tables::kJsSpace;
}

}  // namespace tinylm
