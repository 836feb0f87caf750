#include "tokenizer/word_tokenizer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "util/error.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

// The single-character delimiters of the split regex: [,.:;?_!"()'].
bool is_split_punct(char32_t c) {
  return c < 0x80 &&
         std::string_view(",.:;?_!\"()'").find(static_cast<char>(c)) != std::string_view::npos;
}

// Tokens that decode() attaches to the token before them: those starting with one of
// [,.?!"()'] (the re.sub class).
bool attaches_left(const std::string& token) {
  return !token.empty() && std::string_view(",.?!\"()'").find(token[0]) != std::string_view::npos;
}

}  // namespace

bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> tokens;
  size_t word_start = 0;  // start of the word being scanned (bytes)
  const auto end_word = [&](size_t pos) {
    if (pos > word_start) tokens.emplace_back(text.substr(word_start, pos - word_start));
  };
  char32_t c;
  for (size_t pos = 0; pos < text.size();) {
    const int len = utf8_decode_one(text, pos, &c);
    if (len == 0) throw InputError("word tokenizer: invalid UTF-8 at byte " + std::to_string(pos));
    // Alternatives in the regex's order: punctuation, "--", whitespace.
    size_t delim = 0;
    if (is_split_punct(c)) {
      delim = 1;
    } else if (c == '-' && pos + 1 < text.size() && text[pos + 1] == '-') {
      delim = 2;
    } else if (is_python_space(c)) {
      delim = len;
    }
    if (delim == 0) {
      pos += len;
      continue;
    }
    end_word(pos);
    if (!is_python_space(c)) tokens.emplace_back(text.substr(pos, delim));
    pos += delim;
    word_start = pos;
  }
  end_word(text.size());
  return tokens;
}

WordTokenizer::WordTokenizer(std::vector<std::string> words) : words_(std::move(words)) {
  for (size_t i = 0; i < words_.size(); ++i) {
    require(!words_[i].empty(), "word tokenizer: word " + std::to_string(i) + " is empty");
    const std::vector<char32_t> cps =
        utf8_decode(words_[i], "word tokenizer: word " + std::to_string(i));
    require(std::none_of(cps.begin(), cps.end(), is_python_space),
            "word tokenizer: word " + std::to_string(i) + " contains whitespace");
    const bool fresh = ids_.emplace(words_[i], static_cast<int32_t>(i)).second;
    require(fresh, "word tokenizer: \"" + words_[i] + "\" appears twice in the vocabulary");
  }
  eot_id_ = id_of(kEndOfText);
  unk_id_ = id_of(kUnknown);
  require(eot_id_ >= 0 && unk_id_ >= 0,
          "word tokenizer: the vocabulary must contain <|endoftext|> and <|unk|>");
}

WordTokenizer WordTokenizer::from_corpus(std::string_view text) {
  const std::vector<std::string> tokens = split_words(text);
  require(!tokens.empty(), "word tokenizer: the corpus has no words");
  std::set<std::string> unique(tokens.begin(), tokens.end());  // byte order = code point order
  unique.erase(kEndOfText);
  unique.erase(kUnknown);
  std::vector<std::string> words(unique.begin(), unique.end());
  words.emplace_back(kEndOfText);
  words.emplace_back(kUnknown);
  return WordTokenizer(std::move(words));
}

int32_t WordTokenizer::id_of(const std::string& word) const {
  auto it = ids_.find(word);
  return it == ids_.end() ? -1 : it->second;
}

std::vector<int32_t> WordTokenizer::encode(std::string_view text) const {
  const std::vector<std::string> tokens = split_words(text);
  std::vector<int32_t> ids;
  ids.reserve(tokens.size());
  for (const std::string& t : tokens) {
    const int32_t id = id_of(t);
    ids.push_back(id >= 0 ? id : unk_id_);
  }
  return ids;
}

std::string WordTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    require(id >= 0 && id < vocab_size(), "word tokenizer: id " + std::to_string(id) +
                                              " is outside the vocabulary [0, " +
                                              std::to_string(vocab_size()) + ")");
    const std::string& token = words_[id];
    if (i > 0 && !attaches_left(token)) out += ' ';
    out += token;
  }
  return out;
}

std::string WordTokenizer::decode_piece(int32_t id, bool first) const {
  const std::string token = decode({id});
  return first || attaches_left(token) ? token : " " + token;
}

nlohmann::json WordTokenizer::to_json() const {
  return {{"kind", "word"}, {"words", words_}};
}

WordTokenizer WordTokenizer::from_json(const nlohmann::json& j) {
  require(j.is_object() && j.contains("kind") && j["kind"] == "word",
          "word tokenizer JSON: expected an object with \"kind\": \"word\"");
  require(j.contains("words") && j["words"].is_array(),
          "word tokenizer JSON: \"words\" must be an array of strings");
  std::vector<std::string> words;
  for (const nlohmann::json& w : j["words"]) {
    require(w.is_string(), "word tokenizer JSON: \"words\" must be an array of strings");
    words.push_back(w.get<std::string>());
  }
  return WordTokenizer(std::move(words));
}

}  // namespace tinylm
