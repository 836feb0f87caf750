#include "tokenizer/load.h"

#include "tokenizer/addition_tokenizer.h"
#include "tokenizer/char_tokenizer.h"
#include "tokenizer/word_tokenizer.h"
#include "util/error.h"

namespace tinylm {

std::unique_ptr<Tokenizer> tokenizer_from_json(const nlohmann::json& j) {
  require(j.is_object() && j.contains("kind") && j["kind"].is_string(),
          "tokenizer JSON: expected an object with a string \"kind\"");
  const std::string kind = j["kind"].get<std::string>();
  if (kind == "char") return std::make_unique<CharTokenizer>(CharTokenizer::from_json(j));
  if (kind == "word") return std::make_unique<WordTokenizer>(WordTokenizer::from_json(j));
  if (kind == "addition") {
    return std::make_unique<AdditionTokenizer>(AdditionTokenizer::from_json(j));
  }
  // ---- GPT-2 / trained byte-level BPE (kind "gpt2" and "bpe") -------------------------
  // To be added by the BPE tokenizer (tokenizer/bpe_tokenizer.h), e.g.
  //   if (kind == "gpt2" || kind == "bpe") return BpeTokenizer::from_json(j);
  // ----------------------------------------------------------------------------------------
  throw InputError("tokenizer JSON: unknown kind \"" + kind +
                   "\" (expected char, word, addition, gpt2 or bpe)");
}

std::unique_ptr<Tokenizer> tokenizer_for_corpus(const std::string& name, std::string_view corpus) {
  if (name == "char") return std::make_unique<CharTokenizer>(CharTokenizer::from_corpus(corpus));
  if (name == "word") return std::make_unique<WordTokenizer>(WordTokenizer::from_corpus(corpus));
  if (name == "addition") return std::make_unique<AdditionTokenizer>();
  // ---- GPT-2 / trained byte-level BPE -----------------------------------------------------
  // To be added by the BPE tokenizer: "gpt2" (the shipped files) or a folder holding
  // encoder.json + vocab.bpe, e.g. return std::make_unique<BpeTokenizer>(...).
  // ----------------------------------------------------------------------------------------
  throw InputError("unknown tokenizer \"" + name + "\" (expected char, word, addition or gpt2)");
}

}  // namespace tinylm
