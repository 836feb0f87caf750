// The interface every tokenizer implements (char, word, GPT-2 byte-level BPE, trained
// BPE). A tokenizer is saved with a model as JSON (to_json), so sampling needs no corpus;
// tokenizer/load.h turns that JSON back into the right tokenizer.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // "char", "word", "gpt2", "bpe"
  virtual std::string kind() const = 0;
  virtual int64_t vocab_size() const = 0;
  // Throws InputError for text the tokenizer cannot represent (invalid UTF-8; a
  // character missing from a char vocabulary, naming it).
  virtual std::vector<int32_t> encode(std::string_view text) const = 0;
  // Throws InputError for ids outside [0, vocab_size).
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;
  // The bytes id adds when appended to a decoded sequence (first: it starts it), so that
  // decoding id by id is linear: utf8_lossy of the concatenated pieces of ids equals
  // decode(ids). Bytes, not text: a BPE token may hold part of a UTF-8 character.
  virtual std::string decode_piece(int32_t id, bool first) const { return decode({id}); }
  // Whether id is one of this tokenizer's ids. A model may have more embeddings than its
  // tokenizer has ids (GPT-2's 50257 padded to 50304, as nanoGPT does), and may generate
  // those: they have no text. Generated text spells them as nothing, as llama.cpp does
  // the [PAD] tokens its converter writes and Hugging Face's fast tokenizers do.
  bool spells(int32_t id) const { return id >= 0 && id < vocab_size(); }
  // decode_piece for a generated id: "" for an id the tokenizer does not spell.
  std::string generated_piece(int32_t id, bool first) const {
    return spells(id) ? decode_piece(id, first) : std::string();
  }
  // Everything needed to rebuild this tokenizer: {"kind": ..., ...}.
  virtual nlohmann::json to_json() const = 0;
  // The id of "<|endoftext|>" if the vocabulary has one, else -1.
  virtual int32_t eot_id() const { return -1; }
};

}  // namespace tinylm
