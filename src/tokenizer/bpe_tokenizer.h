// GPT-2's byte-level BPE tokenizer, exactly compatible with OpenAI's tiktoken "gpt2"
// encoding (kind "gpt2"), and any other vocabulary in the same file format (kind "bpe").
//
//   text -> special tokens split out -> GPT-2 pre-tokenisation (bpe_pretokenize.h)
//        -> per piece: the whole piece if it is a token, else a cached result, else
//           byte pair merging (bpe_merge.h) -> ids
//
// Choices, following tiktoken:
//  - encode_ordinary(text) treats special-token text ("<|endoftext|>") as plain text.
//  - encode(text, allowed) encodes the allowed specials as their ids and throws
//    InputError if the text contains any other special (tiktoken's
//    disallowed_special="all").
//  - The Tokenizer interface's encode(text) allows every special token, so
//    "<|endoftext|>" in a training corpus becomes id 50256 (the GPT-2 document separator).
//  - Invalid UTF-8 input: tiktoken takes str and so never sees it; here encode throws
//    InputError naming the byte offset (the project's rule: non-UTF-8 text is bad input).
//  - decode(ids) = UTF-8 with each maximal invalid subsequence replaced by U+FFFD
//    (tiktoken / from_utf8_lossy); decode_bytes(ids) gives the raw bytes. Ids outside
//    [0, vocab_size) throw InputError.
// Thread-safe: encoding keeps its piece cache per thread (bounded in size).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe_pretokenizer_choice.h"
#include "tokenizer/bpe_vocab.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

// Which special tokens encode() turns into their ids; all others are disallowed.
struct AllowedSpecials {
  bool all = false;
  std::vector<std::string> names;
  static AllowedSpecials none() { return {}; }
  static AllowedSpecials every() { return {true, {}}; }
};

// source_dir() + "/data/gpt2" (util/source_dir.h): OpenAI's encoder.json and vocab.bpe shipped in the repo.
std::string default_gpt2_dir();

class BpeTokenizer : public Tokenizer {
 public:
  // Loads dir/encoder.json and dir/vocab.bpe. kind is "gpt2" or "bpe".
  explicit BpeTokenizer(const std::string& dir = default_gpt2_dir(),
                        const std::string& kind = "gpt2");
  // The pre-tokeniser is dir's (its pretokenizer.txt, or gpt2 for an empty dir).
  BpeTokenizer(BpeVocab vocab, std::string kind, std::string dir);
  // From the two files' contents (a tokenizer stored inside a run), cut by `pretokenizer`;
  // dir only names their origin and is not read.
  static BpeTokenizer from_texts(std::string encoder_json, std::string merges_text,
                                 const std::string& kind, const std::string& dir,
                                 Pretokenizer pretokenizer);

  std::string kind() const override { return kind_; }
  int64_t vocab_size() const override { return vocab_.size(); }
  // Every special token allowed (see above).
  std::vector<int32_t> encode(std::string_view text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string decode_piece(int32_t id, bool first) const override { return decode_bytes({id}); }
  // {"kind": "gpt2"} for the shipped files, else {"kind": ..., "dir": ...,
  // "encoder.json": its text, "vocab.bpe": its text, "pretokenizer": its name}: the
  // vocabulary and how it cuts text are stored, not just where they came from.
  nlohmann::json to_json() const override;
  int32_t eot_id() const override { return eot_id_; }

  std::vector<int32_t> encode_ordinary(std::string_view text) const;
  std::vector<int32_t> encode(std::string_view text, const AllowedSpecials& allowed) const;
  // The same result as encode(text, allowed), with the text cut at line starts into
  // chunks encoded on `threads` threads (pieces never cross such a cut).
  std::vector<int32_t> encode_parallel(std::string_view text, const AllowedSpecials& allowed,
                                       int threads) const;
  std::string decode_bytes(const std::vector<int32_t>& ids) const;

  const BpeVocab& vocab() const { return vocab_; }
  // How text is cut before BPE: the folder's pretokenizer.txt, or gpt2
  // (bpe_pretokenizer_choice.h).
  Pretokenizer pretokenizer() const { return pretokenizer_; }

 private:
  void encode_ordinary_into(std::string_view text, size_t base, std::vector<int32_t>& out) const;
  void check_disallowed(std::string_view text, const AllowedSpecials& allowed) const;
  bool is_allowed(const std::string& special, const AllowedSpecials& allowed) const;

  BpeVocab vocab_;
  std::string kind_, dir_;
  std::string encoder_json_, merges_text_;  // the files' text, when loaded from them
  int32_t eot_id_ = -1;
  Pretokenizer pretokenizer_ = Pretokenizer::Gpt2;
  uint64_t cache_owner_;  // identifies this tokenizer in the per-thread caches
};

}  // namespace tinylm
