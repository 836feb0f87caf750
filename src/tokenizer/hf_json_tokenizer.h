// A tokenizer read from Hugging Face's tokenizer.json (kind "hf"), with the few settings
// of tokenizer_config.json that change ids or text, encoding and decoding as
// transformers.js (@lenml/tokenizers) does for Llama 2, Llama 3, Qwen3 and Gemma 3:
//
//   text -> cut at added tokens (hf_json_added.h)
//        -> each plain stretch: normalizer (hf_json_normalizer.h)
//                               -> pre-tokenizer words (hf_json_pretokenizer.h)
//                               -> BPE ids per word (hf_json_bpe.h)
//        -> with add_special_tokens: the post-processor's tokens around them (BOS ...)
//   ids  -> decoder pieces (hf_json_decoder.h) -> valid UTF-8 -> clean-up (below)
//
// Choices:
//  - encode(text) (the Tokenizer interface) parses added tokens in the text (special or
//    not) and adds no BOS: add_special_tokens=false. encode(text, true) adds what the
//    post-processor adds (TemplateProcessing's special tokens; ByteLevel adds none).
//    When tokenizer_config.json has add_bos_token or add_eos_token, they decide instead,
//    as transformers' Llama and Gemma tokenizers do: [bos] $A [eos].
//  - decode(ids) keeps special tokens (skip_special_tokens=false, the default of both
//    transformers and transformers.js); decode(ids, true) drops them (added tokens with
//    "special" and the config's additional_special_tokens).
//  - clean_up_tokenization_spaces (" ." -> ".", " 's" -> "'s", ...) applies to decode
//    when tokenizer_config.json says so, or does not say (transformers.js's default);
//    without a tokenizer_config.json it is off (the tokenizers library has none).
//    decode_piece never applies it: streamed text equals decode(ids, skip, false).
//  - eot_id(): the config's eos_token, else "<|endoftext|>", else -1.
//  - Ids outside [0, vocab_size) are an InputError; invalid UTF-8 input too.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/hf_json_added.h"
#include "tokenizer/hf_json_bpe.h"
#include "tokenizer/hf_json_decoder.h"
#include "tokenizer/hf_json_normalizer.h"
#include "tokenizer/hf_json_pretokenizer.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

class HfJsonTokenizer : public Tokenizer {
 public:
  // json_text: tokenizer.json's text; config: tokenizer_config.json (null when there is
  // none); name: the file, for messages. Throws InputError naming it.
  HfJsonTokenizer(std::string json_text, nlohmann::json config, const std::string& name);

  std::string kind() const override { return "hf"; }
  int64_t vocab_size() const override { return vocab_size_; }
  std::vector<int32_t> encode(std::string_view text) const override { return encode(text, false); }
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens) const;
  std::string decode(const std::vector<int32_t>& ids) const override { return decode(ids, false); }
  std::string decode(const std::vector<int32_t>& ids, bool skip_special,
                     bool clean_up = true) const;
  std::string decode_piece(int32_t id, bool first) const override;
  // {"kind": "hf", "source": name, "tokenizer.json": its text, "tokenizer_config": the
  // settings read from it (or null)}.
  nlohmann::json to_json() const override;
  int32_t eot_id() const override { return eot_id_; }

  // tokenizer.json's text, and the settings of tokenizer_config.json kept (null when
  // there was none): the ones above, its chat_template (chat_template.jinja's text when
  // that file is beside it) and model_max_length.
  const std::string& json_text() const { return json_text_; }
  const std::string& name() const { return name_; }  // the file, for messages
  const nlohmann::json& config() const { return config_; }
  bool is_special(int32_t id) const { return id >= 0 && id < vocab_size_ && special_[id]; }
  // Whether the id is an added token (added_tokens, or spelled as one).
  bool is_added(int32_t id) const { return id >= 0 && id < vocab_size_ && is_added_[id]; }
  // The id of the token spelled `text` (an added token's content first), or -1.
  int32_t id_of(const std::string& text) const;
  // The token's text as the vocabulary (or the added tokens) spell it.
  const std::string& token_text(int32_t id) const { return text_[id]; }

 private:
  void index_tokens();
  void read_config(const std::string& name);
  void read_config_template(const std::string& where);
  // The id of the added token with this content (the last one listed), or -1.
  int32_t added_id(const std::string& content) const;
  void read_post_processor(const nlohmann::json& j, const std::string& where);
  int32_t config_token_id(const char* key, const std::string& name) const;
  void check_id(int32_t id) const;

  std::string json_text_;
  nlohmann::json config_;  // the settings kept (null: no tokenizer_config.json)
  std::string name_;
  HfAddedTokens added_;
  HfNormalizer normalizer_;
  HfPreTokenizer pre_tokenizer_;
  std::unique_ptr<HfBpeModel> model_;
  HfDecoder decoder_;
  std::vector<int32_t> prefix_, suffix_;  // added around $A with add_special_tokens
  std::vector<std::string> text_;         // by id: added content, else vocabulary text
  std::vector<bool> is_added_, special_;  // by id
  int64_t vocab_size_ = 0;
  int32_t eot_id_ = -1;
  bool clean_up_ = false;
};

// Reads path: a tokenizer.json file, or a folder holding tokenizer.json (and, if there,
// tokenizer_config.json and chat_template.jinja; beside a file, those in the same folder
// are read too). InputError naming the path when neither is found.
std::unique_ptr<HfJsonTokenizer> open_hf_json_tokenizer(const std::string& path);

// transformers' clean_up_tokenization: " ." -> ".", " ?" -> "?", " !" -> "!", " ," -> ",",
// " ' " -> "'", " n't" -> "n't", " 'm" -> "'m", " 's" -> "'s", " 've" -> "'ve", " 're" -> "'re".
std::string clean_up_tokenization(std::string text);

}  // namespace tinylm
