// Hugging Face's tokenizer files (see hf_tokenizer_files.h).
#include "tokenizer/hf_tokenizer_files.h"

#include <nlohmann/json.hpp>

#include "tokenizer/bpe_spelling.h"
#include "tokenizer/hf_pretokenizer_json.h"
#include "util/files.h"

namespace tinylm {

namespace {

nlohmann::json byte_level(bool add_prefix_space, bool trim_offsets) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", add_prefix_space},
          {"trim_offsets", trim_offsets},
          {"use_regex", true}};
}

// token text -> id, in id order as encoder.json has it (written by hand: a JSON object
// type that keeps order looks keys up one by one).
std::string vocab_text(const BpeVocab& v) {
  std::string out = "{";
  for (int32_t id = 0; id < static_cast<int32_t>(v.size()); ++id)
    out +=
        (id ? ", " : "") + nlohmann::json(bpe_token_text(v, id)).dump() + ": " + std::to_string(id);
  return out + "}";
}

nlohmann::json vocab_json(const BpeVocab& v) {
  nlohmann::json vocab = nlohmann::json::object();
  for (int32_t id = 0; id < static_cast<int32_t>(v.size()); ++id) vocab[bpe_token_text(v, id)] = id;
  return vocab;
}

nlohmann::json added_tokens(const BpeVocab& v) {
  nlohmann::json out = nlohmann::json::array();
  for (int32_t id = 256 + v.n_merges; id < static_cast<int32_t>(v.size()); ++id)
    out.push_back({{"id", id},
                   {"content", bpe_token_text(v, id)},
                   {"single_word", false},
                   {"lstrip", false},
                   {"rstrip", false},
                   {"normalized", true},
                   {"special", true}});
  return out;
}

// bos/eos/unk: the end-of-text token (none without one).
nlohmann::json special_tokens(const BpeTokenizer& tokenizer) {
  if (tokenizer.eot_id() < 0) return nlohmann::json::object();
  const std::string eot = bpe_token_text(tokenizer.vocab(), tokenizer.eot_id());
  return {{"bos_token", eot}, {"eos_token", eot}, {"unk_token", eot}};
}

// tokenizer_config.json's settings: the end-of-text token as bos/eos/unk, no BOS added,
// no clean-up of spaces.
nlohmann::json hf_tokenizer_config(const BpeTokenizer& tokenizer,
                                   const std::string& tokenizer_class) {
  nlohmann::json config = special_tokens(tokenizer);
  config.update({{"add_bos_token", false},
                 {"add_prefix_space", false},
                 {"clean_up_tokenization_spaces", false},
                 {"errors", "replace"},
                 {"pad_token", nullptr},
                 {"tokenizer_class", tokenizer_class}});
  return config;
}

}  // namespace

nlohmann::json hf_tokenizer_json(const BpeTokenizer& tokenizer) {
  const BpeVocab& v = tokenizer.vocab();
  const nlohmann::json model = {{"type", "BPE"},
                                {"dropout", nullptr},
                                {"unk_token", nullptr},
                                {"continuing_subword_prefix", ""},
                                {"end_of_word_suffix", ""},
                                {"fuse_unk", false},
                                {"byte_fallback", false},
                                {"ignore_merges", false},
                                {"vocab", vocab_json(v)},
                                {"merges", bpe_merge_texts(v)}};
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", added_tokens(v)},
          {"normalizer", nullptr},
          {"pre_tokenizer", hf_pre_tokenizer_json(tokenizer.pretokenizer())},
          {"post_processor", byte_level(true, false)},
          {"decoder", byte_level(true, true)},
          {"model", model}};
}

void write_hf_tokenizer_json(const BpeTokenizer& tokenizer, const std::string& dir) {
  // Hugging Face's class for a tokenizer.json alone (no vocab.json, merges.txt)
  const nlohmann::json config = hf_tokenizer_config(tokenizer, "PreTrainedTokenizerFast");
  write_file_atomic(dir + "/tokenizer.json", hf_tokenizer_json(tokenizer).dump(2) + "\n");
  write_file_atomic(dir + "/tokenizer_config.json", config.dump(2) + "\n");
}

void write_hf_tokenizer_files(const BpeTokenizer& tokenizer, int64_t model_max_length,
                              const std::string& dir) {
  const BpeVocab& v = tokenizer.vocab();
  std::string merges = "#version: 0.2\n";
  for (const std::string& m : bpe_merge_texts(v)) merges += m + "\n";
  // GPT2Tokenizer (transformers' slow one too) cuts text as GPT-2 does only
  const bool gpt2 = tokenizer.pretokenizer() == Pretokenizer::Gpt2;
  nlohmann::json config =
      hf_tokenizer_config(tokenizer, gpt2 ? "GPT2Tokenizer" : "PreTrainedTokenizerFast");
  config["model_max_length"] = model_max_length;
  write_file_atomic(dir + "/vocab.json", vocab_text(v) + "\n");
  write_file_atomic(dir + "/merges.txt", merges);
  write_file_atomic(dir + "/tokenizer.json", hf_tokenizer_json(tokenizer).dump(2) + "\n");
  write_file_atomic(dir + "/tokenizer_config.json", config.dump(2) + "\n");
  write_file_atomic(dir + "/special_tokens_map.json", special_tokens(tokenizer).dump(2) + "\n");
}

}  // namespace tinylm
