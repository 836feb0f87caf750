#include "tokenizer/gguf_pretokenizers.h"

#include "util/error.h"

namespace tinylm {
namespace {

using nlohmann::json;

// The ByteLevel step: with GPT-2's regex (use_regex) or after a Split that cut the words.
json byte_level_step(bool use_regex) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", use_regex}};
}

json split_then_byte_level(const char* regex) {
  const json split = {{"type", "Split"},
                      {"pattern", {{"Regex", regex}}},
                      {"behavior", "Isolated"},
                      {"invert", false}};
  return {{"type", "Sequence"}, {"pretokenizers", json::array({split, byte_level_step(false)})}};
}

// The regexes as Llama 3's and Qwen2's tokenizer.json files spell them (llama.cpp's
// llama-vocab.cpp quotes the same two).
constexpr const char* kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::vector<GgufPretokenizer> make_rows() {
  const json digits = {{"type", "Digits"}, {"individual_digits", true}};
  return {
      {"gpt-2", byte_level_step(true), nullptr, false},
      {"llama-bpe", split_then_byte_level(kLlama3Regex), nullptr, true},
      {"qwen2", split_then_byte_level(kQwen2Regex), {{"type", "NFC"}}, false},
      {"smollm",
       {{"type", "Sequence"}, {"pretokenizers", json::array({digits, byte_level_step(true)})}},
       nullptr,
       false},
  };
}

// j without "trim_offsets" anywhere (it moves offsets, never ids).
json without_trim_offsets(json j) {
  if (j.is_object()) {
    j.erase("trim_offsets");
    for (auto& [key, value] : j.items()) value = without_trim_offsets(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = without_trim_offsets(value);
  }
  return j;
}

const json& part(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

bool is_null_or_false(const json& j) {
  return j.is_null() || (j.is_boolean() && !j.get<bool>());
}

// The reason llama.cpp's gpt2 tokenizer cannot take this model/normalizer/decoder, or "".
std::string unsupported_part(const json& j) {
  const json& model = part(j, "model");
  if (part(model, "type") != "BPE") return "a model that is not BPE";
  if (!is_null_or_false(part(model, "byte_fallback")))
    return "a BPE model with byte_fallback (SentencePiece-style, as Llama 2's and Gemma's)";
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (!part(model, key).is_null() && part(model, key) != "")
      return std::string("a BPE model with a ") + key;
  const json& normalizer = part(j, "normalizer");
  if (!normalizer.is_null() && part(normalizer, "type") != "NFC")
    return "the normalizer " + normalizer.dump();
  if (part(part(j, "decoder"), "type") != "ByteLevel") return "a decoder that is not ByteLevel";
  return "";
}

}  // namespace

const std::vector<GgufPretokenizer>& gguf_pretokenizers() {
  static const std::vector<GgufPretokenizer> rows = make_rows();
  return rows;
}

const GgufPretokenizer* find_gguf_pretokenizer(const std::string& name) {
  for (const GgufPretokenizer& row : gguf_pretokenizers())
    if (row.name == name) return &row;
  return nullptr;
}

const GgufPretokenizer& gguf_pretokenizer_of(const json& tokenizer_json, const std::string& where) {
  const std::string unsupported = unsupported_part(tokenizer_json);
  require(unsupported.empty(), [&] {
    return where + ": " + unsupported +
           "; GGUF export takes byte-level BPE tokenizers (GPT-2, Llama 3, Qwen, SmolLM2)";
  });
  const json pre = without_trim_offsets(part(tokenizer_json, "pre_tokenizer"));
  for (const GgufPretokenizer& row : gguf_pretokenizers())
    if (pre == without_trim_offsets(row.pre_tokenizer)) return row;
  throw InputError(where + ": llama.cpp names no pre-tokenizer like this one (" + pre.dump() +
                   "); GGUF export takes those of GPT-2, Llama 3, Qwen2/3 and SmolLM2");
}

}  // namespace tinylm
