#include "tokenizer/bpe_pretokenize_pcre.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "util/error.h"

namespace tinylm {

#define TINYLM_WS        \
  "\\t\\n\\x{0B}\\f\\r " \
  "\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
const char* const kGpt2PatternPcre =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" TINYLM_WS "\\p{L}\\p{N}]+|[" TINYLM_WS
    "]+(?![^" TINYLM_WS "])|[" TINYLM_WS "]+";
#undef TINYLM_WS

struct PcreSplitter::Impl {
  pcre2_code* code = nullptr;
};

PcreSplitter::PcreSplitter(const std::string& pattern) : impl_(std::make_unique<Impl>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(),
                              PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw InputError("regex does not compile at offset " + std::to_string(offset) + ": " +
                     reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter
}

PcreSplitter::~PcreSplitter() {
  pcre2_code_free(impl_->code);
}

std::vector<std::string_view> PcreSplitter::split(std::string_view text) const {
  std::vector<std::string_view> out;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;
  uint32_t options = 0;  // validate UTF-8 on the first call only
  while (pos < text.size()) {
    const int rc = pcre2_match(impl_->code, subject, text.size(), pos, options, md, nullptr);
    options = PCRE2_NO_UTF_CHECK;
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      pcre2_match_data_free(md);
      throw InputError("regex match failed (invalid UTF-8?) at byte " + std::to_string(pos));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    if (ov[1] == ov[0]) break;  // the GPT-2 pattern never matches empty
    out.push_back(text.substr(ov[0], ov[1] - ov[0]));
    pos = ov[1];
  }
  pcre2_match_data_free(md);
  return out;
}

}  // namespace tinylm
