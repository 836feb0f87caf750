// A char-level vocabulary (char_tokenizer.h) spelled as a byte-level BPE vocabulary that
// cuts every text exactly as the char tokenizer does (what GGUF's "gpt2" tokenizer can
// hold, export/gguf_export.h), and back:
//   tokens  character i is token i: its UTF-8 bytes in GPT-2's byte-to-unicode alphabet
//           ('a' -> "a", ' ' -> "Ġ", '\n' -> "Ċ", 'é' (C3 A9) -> "Ã©")
//   merges  for each character of n > 1 bytes, in vocabulary order, its byte prefixes
//           joined one byte at a time: "b1 b2", "b1b2 b3", ... (a prefix shared by
//           several characters once). A prefix starts with a lead byte, and in valid UTF-8
//           the byte after it is its own character's next one, so no merge ever joins
//           bytes of two characters and each character of the vocabulary ends as one
//           symbol, its token, whatever the pre-tokeniser cut. A one-byte character needs
//           no merge; the prefixes need no token (BPE looks merges up by pair).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tinylm {

struct BpeSpelling {
  std::vector<std::string> tokens;  // [vocabulary]
  std::vector<std::string> merges;  // "left right", in rank order
};

BpeSpelling char_vocab_as_bpe(const std::vector<char32_t>& chars);

// The characters of `tokens` when tokens and merges are exactly char_vocab_as_bpe's
// spelling of them (tokens past `real` are ignored: pads); std::nullopt otherwise.
std::optional<std::vector<char32_t>> chars_of_bpe_spelling(const std::vector<std::string>& tokens,
                                                           const std::vector<std::string>& merges,
                                                           size_t real);

}  // namespace tinylm
