#include "tokenizer/gpt2_cut.h"

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"

namespace tinylm {

namespace {

// vocab.bpe's header and its first n merge lines.
std::string first_merges(const std::string& merges_text, int64_t n) {
  size_t end = merges_text.find('\n') + 1;  // "#version: 0.2"
  for (int64_t i = 0; i < n && end != 0; ++i) end = merges_text.find('\n', end) + 1;
  require(end != 0, "GPT-2's vocab.bpe has fewer merges than asked");
  return merges_text.substr(0, end);
}

}  // namespace

BpeTokenizer gpt2_tokenizer_cut_to(int64_t vocab, const std::string& dir) {
  const BpeTokenizer full(dir);
  require(vocab >= 257 && vocab <= full.vocab_size(), "a cut of GPT-2's BPE needs 257.." +
                                                          std::to_string(full.vocab_size()) +
                                                          " ids, not " + std::to_string(vocab));
  const int64_t kept = vocab - 1;  // regular tokens: bytes and merges, ids 0..vocab-2
  nlohmann::json encoder = nlohmann::json::object();
  for (int32_t id = 0; id < kept; ++id)
    encoder[bytes_to_token_text(full.vocab().bytes_of(id))] = id;
  encoder["<|endoftext|>"] = kept;
  return BpeTokenizer::from_texts(encoder.dump(),
                                  first_merges(read_file(dir + "/vocab.bpe"), kept - 256), "bpe",
                                  "", Pretokenizer::Gpt2);
}

}  // namespace tinylm
