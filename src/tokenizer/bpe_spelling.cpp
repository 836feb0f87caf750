// Spelling a BPE vocabulary (see bpe_spelling.h).
#include "tokenizer/bpe_spelling.h"

#include "util/error.h"

namespace tinylm {

bool is_special_token(const BpeVocab& v, int32_t id) {
  return id >= 256 + v.n_merges;
}

std::string bpe_token_text(const BpeVocab& v, int32_t id) {
  return is_special_token(v, id) ? std::string(v.bytes_of(id))
                                 : bytes_to_token_text(v.bytes_of(id));
}

std::vector<std::string> bpe_merge_texts(const BpeVocab& v) {
  std::vector<std::string> merges;
  merges.reserve(v.merges.size());
  for (const auto& [left, right] : v.merges)
    merges.push_back(bytes_to_token_text(v.bytes_of(static_cast<int32_t>(left))) + " " +
                     bytes_to_token_text(v.bytes_of(static_cast<int32_t>(right))));
  return merges;
}

void require_gpt2_pretokenizer(const BpeTokenizer& tokenizer, const std::string& format) {
  require(tokenizer.pretokenizer() == Pretokenizer::Gpt2, [&] {
    return "a BPE vocabulary with the " + pretokenizer_name(tokenizer.pretokenizer()) +
           " pre-tokeniser: " + format + " cuts text as GPT-2 does only";
  });
}

}  // namespace tinylm
