// A byte-level BPE vocabulary in OpenAI's GPT-2 file format:
//   encoder.json  {"token": id, ...}, tokens spelled in GPT-2's byte-to-unicode alphabet
//   vocab.bpe     "#version: 0.2", then one merge "left right" per line
// Ids are laid out as in GPT-2 (and as tiktoken requires): the 256 single bytes take
// ids 0..255, merge i (0-based) produces id 256+i, and any further ids are special tokens
// (GPT-2: "<|endoftext|>" = 50256). A token's id is also its merge rank.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/bpe_bytes_map.h"

namespace tinylm {

// GPT-2's bytes_to_unicode: byte b is written as the code point byte_to_unicode()[b].
// Printable Latin-1 bytes map to themselves, the other 68 bytes to U+0100..U+0143.
const std::array<char32_t, 256>& byte_to_unicode();
// The inverse: code point -> byte, or -1 when the code point is not in the alphabet.
int unicode_to_byte(char32_t cp);
// A token's bytes spelled in the alphabet (UTF-8), as in encoder.json / vocab.bpe.
std::string bytes_to_token_text(std::string_view bytes);

struct BpeVocab {
  // Bytes of token id: token_bytes[token_offset[id] .. token_offset[id + 1]).
  std::string token_bytes;
  std::vector<uint32_t> token_offset;
  int32_t n_merges = 0;
  std::vector<std::pair<uint32_t, uint32_t>> merges;  // merge i: (left id, right id) -> 256 + i
  BytesMap mergeable{1};  // bytes -> id, for ids below 256 + n_merges (no specials)
  // (left id, right id) -> id of the token whose bytes are left + right, for every way a
  // token splits into two tokens: tiktoken's rule "merge the adjacent pair whose
  // concatenation has the lowest rank" becomes one lookup.
  PairMap pairs;
  std::array<uint32_t, 256> byte_id{};                    // id of each single byte
  std::vector<std::pair<std::string, int32_t>> specials;  // text -> id

  int64_t size() const { return static_cast<int64_t>(token_offset.size()) - 1; }
  std::string_view bytes_of(int32_t id) const {
    return std::string_view(token_bytes)
        .substr(token_offset[id], token_offset[id + 1] - token_offset[id]);
  }
};

// Parses the two files' contents; names are used in error messages. Throws InputError
// naming the file (and line for vocab.bpe) on anything malformed: bad JSON, ids that are
// not 0..N-1, tokens outside the alphabet, a merge whose parts or result are missing or
// whose result id is not 256 + its index, a missing single byte, ...
BpeVocab parse_bpe_vocab(std::string_view encoder_json, std::string_view merges_text,
                         const std::string& encoder_name = "encoder.json",
                         const std::string& merges_name = "vocab.bpe");

// Loads dir/encoder.json and dir/vocab.bpe.
BpeVocab load_bpe_vocab(const std::string& dir);

}  // namespace tinylm
