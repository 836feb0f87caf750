#include "open/gguf_tokenizer_json.h"

#include "util/error.h"

namespace tinylm {
namespace {

using nlohmann::json;

constexpr int64_t kControlType = 3, kUserDefinedType = 4, kUnusedType = 5;

const std::vector<std::string>& string_list(const Gguf& g, const char* key) {
  const GgufValue& v = g.get(key);
  require(v.type == GgufType::kString && v.is_array,
          g.source + ": " + std::string(key) + " must be an array of strings");
  return v.strings;
}

// tokenizer.ggml.token_type, or every token normal when the file has none.
std::vector<int64_t> token_types(const Gguf& g, size_t n_tokens) {
  const GgufValue* v = g.find("tokenizer.ggml.token_type");
  if (!v) return std::vector<int64_t>(n_tokens, 1);
  require(v->is_array && !v->ints.empty() && v->ints.size() == n_tokens,
          g.source + ": tokenizer.ggml.token_type must have one integer per token");
  return v->ints;
}

json added_token(int64_t id, const std::string& text, bool special) {
  return {{"id", id},        {"content", text},     {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", special}};
}

json tokenizer_json_of(const Gguf& g, const GgufPretokenizer& pre) {
  const std::vector<std::string>& tokens = string_list(g, "tokenizer.ggml.tokens");
  const std::vector<int64_t> types = token_types(g, tokens.size());
  json vocab = json::object(), added = json::array();
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (types[id] == kUnusedType) continue;
    if (types[id] == kControlType || types[id] == kUserDefinedType)
      added.push_back(added_token(static_cast<int64_t>(id), tokens[id], types[id] == kControlType));
    else
      vocab[tokens[id]] = id;
  }
  const json byte_level = {{"type", "ByteLevel"},
                           {"add_prefix_space", false},
                           {"trim_offsets", false},
                           {"use_regex", false}};
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", std::move(added)},
          {"normalizer", pre.normalizer},
          {"pre_tokenizer", pre.pre_tokenizer},
          {"post_processor", byte_level},
          {"decoder", byte_level},
          {"model",
           {{"type", "BPE"},
            {"dropout", nullptr},
            {"unk_token", nullptr},
            {"continuing_subword_prefix", nullptr},
            {"end_of_word_suffix", nullptr},
            {"fuse_unk", false},
            {"byte_fallback", false},
            {"ignore_merges", pre.ignore_merges},
            {"vocab", std::move(vocab)},
            {"merges", string_list(g, "tokenizer.ggml.merges")}}}};
}

// The token named by an id key (bos/eos), or "" when the file names none.
std::string token_named(const Gguf& g, const char* key, const std::vector<std::string>& tokens) {
  if (!g.find(key)) return "";
  const int64_t id = g.get_integer(key);
  require(id >= 0 && id < static_cast<int64_t>(tokens.size()),
          g.source + ": " + std::string(key) + " is not a token id");
  return tokens[static_cast<size_t>(id)];
}

bool flag(const Gguf& g, const char* key) {
  const GgufValue* v = g.find(key);
  return v && !v->is_array && v->type == GgufType::kBool && !v->ints.empty() && v->ints[0] != 0;
}

json config_of(const Gguf& g) {
  const std::vector<std::string>& tokens = string_list(g, "tokenizer.ggml.tokens");
  json config = json::object();
  const std::string bos = token_named(g, "tokenizer.ggml.bos_token_id", tokens);
  const std::string eos = token_named(g, "tokenizer.ggml.eos_token_id", tokens);
  if (!bos.empty()) config["bos_token"] = bos;
  if (!eos.empty()) config["eos_token"] = eos;
  config["add_bos_token"] = flag(g, "tokenizer.ggml.add_bos_token") && !bos.empty();
  config["add_eos_token"] = flag(g, "tokenizer.ggml.add_eos_token") && !eos.empty();
  if (g.find("tokenizer.chat_template"))
    config["chat_template"] = g.get_string("tokenizer.chat_template");
  return config;
}

}  // namespace

std::unique_ptr<HfJsonTokenizer> gguf_tokenizer_json(const Gguf& g, const GgufPretokenizer& pre) {
  try {
    return std::make_unique<HfJsonTokenizer>(tokenizer_json_of(g, pre).dump(), config_of(g),
                                             g.source + " (its tokenizer)");
  } catch (const InputError& e) {
    throw InputError(g.source + ": its " + pre.name + " tokenizer: " + e.what());
  }
}

}  // namespace tinylm
