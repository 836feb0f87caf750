#include "tokenizer/load.h"

#include <nlohmann/json.hpp>

#include "tokenizer/addition_tokenizer.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/char_tokenizer.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "tokenizer/word_tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

// How a stored BPE vocabulary cuts text: its "pretokenizer"; a run written before that
// field was stored names only the folder it came from, read as it was then.
Pretokenizer stored_pretokenizer(const nlohmann::json& j, const std::string& dir) {
  if (!j.contains("pretokenizer")) return dir.empty() ? Pretokenizer::Gpt2 : read_pretokenizer(dir);
  require(j["pretokenizer"].is_string(), "tokenizer JSON: \"pretokenizer\" must be a string");
  return parse_pretokenizer(j["pretokenizer"].get<std::string>());
}

}  // namespace

std::unique_ptr<Tokenizer> tokenizer_from_json(const nlohmann::json& j) {
  require(j.is_object() && j.contains("kind") && j["kind"].is_string(),
          "tokenizer JSON: expected an object with a string \"kind\"");
  const std::string kind = j["kind"].get<std::string>();
  if (kind == "char") return std::make_unique<CharTokenizer>(CharTokenizer::from_json(j));
  if (kind == "word") return std::make_unique<WordTokenizer>(WordTokenizer::from_json(j));
  if (kind == "addition") {
    return std::make_unique<AdditionTokenizer>(AdditionTokenizer::from_json(j));
  }
  if (kind == "gpt2" || kind == "bpe") {  // {"kind": "gpt2"} or {"kind": ..., "dir": ...}
    if (j.contains("encoder.json") || j.contains("vocab.bpe")) {  // the vocabulary itself
      require(j.contains("encoder.json") && j["encoder.json"].is_string() &&
                  j.contains("vocab.bpe") && j["vocab.bpe"].is_string(),
              "tokenizer JSON: \"encoder.json\" and \"vocab.bpe\" must both be strings");
      const std::string dir =
          j.contains("dir") && j["dir"].is_string() ? j["dir"].get<std::string>() : "";
      return std::make_unique<BpeTokenizer>(BpeTokenizer::from_texts(
          j["encoder.json"].get<std::string>(), j["vocab.bpe"].get<std::string>(), kind, dir,
          stored_pretokenizer(j, dir)));
    }
    if (j.contains("dir")) {
      require(j["dir"].is_string(), "tokenizer JSON: \"dir\" must be a string");
      return std::make_unique<BpeTokenizer>(j["dir"].get<std::string>(), kind);
    }
    require(kind == "gpt2", "tokenizer JSON: a \"bpe\" tokenizer needs its \"dir\"");
    return std::make_unique<BpeTokenizer>();
  }
  if (kind == "hf") {  // a tokenizer.json, embedded whole
    require(j.contains("tokenizer.json") && j["tokenizer.json"].is_string(),
            "tokenizer JSON: an \"hf\" tokenizer needs its \"tokenizer.json\" text");
    const std::string source =
        j.contains("source") && j["source"].is_string() ? j["source"].get<std::string>() : "";
    return std::make_unique<HfJsonTokenizer>(
        j["tokenizer.json"].get<std::string>(),
        j.contains("tokenizer_config") ? j["tokenizer_config"] : nlohmann::json(),
        source.empty() ? "tokenizer.json" : source);
  }
  throw InputError("tokenizer JSON: unknown kind \"" + kind +
                   "\" (expected char, word, addition, gpt2, bpe or hf)");
}

std::unique_ptr<Tokenizer> stored_folder_tokenizer(const std::string& dir) {
  const std::string stored = dir + "/" + kTinylmTokenizerFile;
  if (!file_exists(stored)) return nullptr;
  return tokenizer_from_json(parse_json(read_file(stored), stored));
}

std::unique_ptr<Tokenizer> tokenizer_for_corpus(const std::string& name, std::string_view corpus) {
  if (name == "char") return std::make_unique<CharTokenizer>(CharTokenizer::from_corpus(corpus));
  if (name == "word") return std::make_unique<WordTokenizer>(WordTokenizer::from_corpus(corpus));
  if (name == "addition") return std::make_unique<AdditionTokenizer>();
  if (name == "gpt2") return std::make_unique<BpeTokenizer>();
  // A folder with encoder.json + vocab.bpe (e.g. written by a BPE trainer).
  if (file_exists(name + "/encoder.json") && file_exists(name + "/vocab.bpe"))
    return std::make_unique<BpeTokenizer>(name, "bpe");
  // A Hugging Face tokenizer.json, or a folder holding one (a model's).
  if (file_exists(name + "/tokenizer.json") ||
      (name.ends_with(".json") && file_exists(name) && !is_directory(name)))
    return open_hf_json_tokenizer(name);
  throw InputError("unknown tokenizer \"" + name +
                   "\" (expected char, word, addition, gpt2, a folder with encoder.json + "
                   "vocab.bpe, or a tokenizer.json or a folder holding one)");
}

}  // namespace tinylm
