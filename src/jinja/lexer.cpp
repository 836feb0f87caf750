#include "jinja/lexer.h"

#include <utility>

#include "jinja/error.h"
#include "jinja/js_text.h"
#include "util/utf8.h"

namespace tinylm::jinja {
namespace {

// The template as code points, each with the line it was written on, so that the
// preprocessing passes (which delete characters, newlines among them) keep the lines.
struct Source {
  std::u32string text;
  std::vector<int> lines;
  void push(char32_t c, int line) {
    text.push_back(c);
    lines.push_back(line);
  }
  void copy(const Source& from, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) push(from.text[i], from.lines[i]);
  }
};

[[noreturn]] void lex_error(int line, const std::string& message) {
  throw TemplateError("line " + std::to_string(line) + ": " + message);
}

Source decode_source(std::string_view source) {
  Source src;
  int line = 1;
  for (size_t pos = 0; pos < source.size();) {
    char32_t cp;
    const int n = utf8_decode_one(source, pos, &cp);
    if (n == 0)
      lex_error(line, "the template is not valid UTF-8 (byte " + std::to_string(pos) + ")");
    src.push(cp, line);
    if (cp == '\n') ++line;
    pos += n;
  }
  return src;
}

// Where JavaScript's multiline ^ matches: the start, and after \n, \r, U+2028, U+2029.
bool at_line_start(const std::u32string& t, size_t i) {
  return i == 0 || t[i - 1] == '\n' || t[i - 1] == '\r' || t[i - 1] == 0x2028 || t[i - 1] == 0x2029;
}

// lstrip_blocks: /^[ \t]*({[#%-])/gm -> "$1" ("{-" included, as the regex has it).
Source lstrip_blocks(const Source& in) {
  Source out;
  const std::u32string& t = in.text;
  for (size_t i = 0; i < t.size();) {
    if (at_line_start(t, i)) {
      size_t j = i;
      while (j < t.size() && (t[j] == ' ' || t[j] == '\t')) ++j;
      if (j + 1 < t.size() && t[j] == '{' &&
          (t[j + 1] == '#' || t[j + 1] == '%' || t[j + 1] == '-')) {
        i = j;  // drop the indentation, keep the tag
      }
    }
    out.push(t[i], in.lines[i]);
    ++i;
  }
  return out;
}

// trim_blocks: /([#%-]})\n/g -> "$1".
Source trim_blocks(const Source& in) {
  Source out;
  const std::u32string& t = in.text;
  for (size_t i = 0; i < t.size(); ++i) {
    out.push(t[i], in.lines[i]);
    const bool closer =
        i >= 1 && t[i] == '}' && (t[i - 1] == '#' || t[i - 1] == '%' || t[i - 1] == '-');
    if (closer && i + 1 < t.size() && t[i + 1] == '\n') ++i;
  }
  return out;
}

// Matches {%-? \s* (end)?generation \s* -?%} at i; sets where it ends and its dashes.
bool generation_tag_at(const std::u32string& t, size_t i, size_t* end, bool* lstrip, bool* rstrip) {
  if (t.compare(i, 2, U"{%") != 0) return false;
  size_t j = i + 2;
  *lstrip = j < t.size() && t[j] == '-';
  if (*lstrip) ++j;
  while (j < t.size() && is_js_space(t[j])) ++j;
  if (t.compare(j, 3, U"end") == 0 && t.compare(j + 3, 10, U"generation") == 0) j += 3;
  if (t.compare(j, 10, U"generation") != 0) return false;
  j += 10;
  while (j < t.size() && is_js_space(t[j])) ++j;
  *rstrip = j < t.size() && t[j] == '-';
  if (*rstrip) ++j;
  if (t.compare(j, 2, U"%}") != 0) return false;
  *end = j + 2;
  return true;
}

// /(\s*){%(-?)\s*(?:end)?generation\s*(-?)%}(\s*)/gs: the tag goes; the whitespace around
// it stays unless the tag's dash on that side says to strip it.
Source remove_generation_tags(const Source& in) {
  Source out;
  const std::u32string& t = in.text;
  size_t i = 0, j = t.find(U"{%");
  while (j != std::u32string::npos) {
    size_t end;
    bool lstrip, rstrip;
    if (!generation_tag_at(t, j, &end, &lstrip, &rstrip)) {
      j = t.find(U"{%", j + 2);
      continue;
    }
    size_t before = j;
    while (before > i && is_js_space(t[before - 1])) --before;
    out.copy(in, i, lstrip ? before : j);
    size_t after = end;
    while (after < t.size() && is_js_space(t[after])) ++after;
    if (!rstrip) out.copy(in, end, after);
    i = after;
    j = t.find(U"{%", after);
  }
  out.copy(in, i, t.size());
  return out;
}

Source preprocess(std::string_view source) {
  Source src = decode_source(source);
  if (!src.text.empty() && src.text.back() == '\n') {
    src.text.pop_back();
    src.lines.pop_back();
  }
  return remove_generation_tags(trim_blocks(lstrip_blocks(src)));
}

bool is_digit(char32_t c) {
  return c >= '0' && c <= '9';
}
bool is_word(char32_t c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// The operators and punctuation in the order @huggingface/jinja tries them.
const std::pair<std::u32string_view, TokenType> kSymbols[] = {
    {U"{%", TokenType::OpenStatement},  {U"%}", TokenType::CloseStatement},
    {U"{{", TokenType::OpenExpression}, {U"}}", TokenType::CloseExpression},
    {U"(", TokenType::OpenParen},       {U")", TokenType::CloseParen},
    {U"{", TokenType::OpenCurly},       {U"}", TokenType::CloseCurly},
    {U"[", TokenType::OpenSquare},      {U"]", TokenType::CloseSquare},
    {U",", TokenType::Comma},           {U".", TokenType::Dot},
    {U":", TokenType::Colon},           {U"|", TokenType::Pipe},
    {U"<=", TokenType::Comparison},     {U">=", TokenType::Comparison},
    {U"==", TokenType::Comparison},     {U"!=", TokenType::Comparison},
    {U"<", TokenType::Comparison},      {U">", TokenType::Comparison},
    {U"+", TokenType::Additive},        {U"-", TokenType::Additive},
    {U"~", TokenType::Additive},        {U"**", TokenType::Power},
    {U"*", TokenType::Multiplicative},  {U"//", TokenType::Multiplicative},
    {U"/", TokenType::Multiplicative},  {U"%", TokenType::Multiplicative},
    {U"=", TokenType::Equals},
};

class Lexer {
 public:
  explicit Lexer(Source src) : src_(std::move(src)), t_(src_.text) {}

  std::vector<Token> run() {
    while (pos_ < t_.size()) step();
    return std::move(tokens_);
  }

 private:
  Source src_;
  const std::u32string& t_;
  size_t pos_ = 0;
  int curly_depth_ = 0;
  std::vector<Token> tokens_;

  int line() const { return src_.lines[pos_ < t_.size() ? pos_ : t_.size() - 1]; }
  bool starts_with(std::u32string_view s) const { return t_.compare(pos_, s.size(), s) == 0; }
  bool last_is(TokenType type) const { return !tokens_.empty() && tokens_.back().type == type; }
  void push(TokenType type, std::string value, int line) {
    tokens_.push_back({type, std::move(value), line});
  }

  void step() {
    if (tokens_.empty() || last_is(TokenType::CloseStatement) ||
        last_is(TokenType::CloseExpression) || last_is(TokenType::Comment)) {
      if (read_text()) return;
    }
    if (starts_with(U"{#")) return read_comment();
    if (starts_with(U"{%-") || starts_with(U"{{-")) {
      strip_trailing_whitespace();
      const bool statement = t_[pos_ + 1] == '%';
      push(statement ? TokenType::OpenStatement : TokenType::OpenExpression,
           statement ? "{%" : "{{", line());
      if (!statement) curly_depth_ = 0;
      pos_ += 3;
      return;
    }
    consume_while([](char32_t c) { return is_js_space(c); });
    if (starts_with(U"-%}") || starts_with(U"-}}")) {
      const bool statement = t_[pos_ + 1] == '%';
      push(statement ? TokenType::CloseStatement : TokenType::CloseExpression,
           statement ? "%}" : "}}", line());
      pos_ += 3;
      skip_whitespace();
      return;
    }
    read_in_tag();
  }

  // Text up to the next {%, {{ or {#; false when there is none before it.
  bool read_text() {
    const size_t start = pos_;
    while (pos_ < t_.size() &&
           !(t_[pos_] == '{' && pos_ + 1 < t_.size() &&
             (t_[pos_ + 1] == '%' || t_[pos_ + 1] == '{' || t_[pos_ + 1] == '#'))) {
      ++pos_;
    }
    if (pos_ == start) return false;
    std::string text;
    for (size_t i = start; i < pos_; ++i) utf8_append(text, t_[i]);
    push(TokenType::Text, std::move(text), src_.lines[start]);
    return true;
  }

  void read_comment() {
    const int start_line = line();
    pos_ += 2;
    const bool strip_before = pos_ < t_.size() && t_[pos_] == '-';
    if (strip_before) ++pos_;
    std::string comment;
    while (!(pos_ + 1 < t_.size() && t_[pos_] == '#' && t_[pos_ + 1] == '}')) {
      if (pos_ + 2 >= t_.size()) lex_error(start_line, "comment {# is never closed by #}");
      utf8_append(comment, t_[pos_++]);
    }
    const bool strip_after = !comment.empty() && comment.back() == '-';
    if (strip_before) strip_trailing_whitespace();
    push(TokenType::Comment, comment, start_line);
    pos_ += 2;
    if (strip_after) skip_whitespace();
  }

  void strip_trailing_whitespace() {
    if (!last_is(TokenType::Text)) return;
    tokens_.back().value = js_trim_end(tokens_.back().value);
    if (tokens_.back().value.empty()) tokens_.pop_back();
  }

  void skip_whitespace() {
    while (pos_ < t_.size() && is_js_space(t_[pos_])) ++pos_;
  }

  // Reads characters while pred holds; running into the end of the template inside a
  // tag is an error (as in @huggingface/jinja, whose tags must be closed).
  template <class Pred>
  std::string consume_while(Pred pred, bool escapes = false) {
    std::string out;
    while (pos_ < t_.size() && pred(t_[pos_])) {
      if (escapes && t_[pos_] == '\\') {
        read_escape(out);
        continue;
      }
      utf8_append(out, t_[pos_++]);
      if (pos_ >= t_.size()) lex_error(line(), "unexpected end of the template inside a tag");
    }
    return out;
  }

  void read_escape(std::string& out) {
    const int at = line();
    if (++pos_ >= t_.size()) lex_error(at, "unexpected end of the template in a string");
    const char32_t c = t_[pos_++];
    if (c == 'x' || c == 'u') return out += read_hex_escape(c == 'x' ? 2 : 4, at), void();
    static const std::pair<char32_t, char> kEscapes[] = {{'n', '\n'},  {'t', '\t'}, {'r', '\r'},
                                                         {'b', '\b'},  {'f', '\f'}, {'v', '\v'},
                                                         {'\'', '\''}, {'"', '"'},  {'\\', '\\'}};
    for (const auto& [name, value] : kEscapes)
      if (c == name) return out.push_back(value);
    std::string shown;
    utf8_append(shown, c);
    lex_error(at, "unknown escape \\" + shown + " in a string");
  }

  // \xHH or \uHHHH: one UTF-16 unit; a surrogate pair written as two \u escapes joins.
  std::string read_hex_escape(int digits, int at) {
    const auto hex_value = [&](size_t from, unsigned* value) {
      if (from + digits > t_.size()) return false;
      *value = 0;
      for (int i = 0; i < digits; ++i) {
        const char32_t h = t_[from + i];
        const int d = is_digit(h)              ? h - '0'
                      : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                      : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                               : -1;
        if (d < 0) return false;
        *value = *value * 16 + d;
      }
      return true;
    };
    unsigned unit;
    if (!hex_value(pos_, &unit)) lex_error(at, "invalid hexadecimal escape in a string");
    pos_ += digits;
    char32_t cp = unit;
    unsigned low;
    if (unit >= 0xD800 && unit < 0xDC00 && starts_with(U"\\u") && hex_value(pos_ + 2, &low) &&
        low >= 0xDC00 && low < 0xE000) {
      cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
      pos_ += 6;
    } else if (unit >= 0xD800 && unit < 0xE000) {
      cp = 0xFFFD;  // a lone surrogate, as Node writes it out
    }
    std::string out;
    utf8_append(out, cp);
    return out;
  }

  // A '-' or '+' after an operand is binary; anywhere else it is a sign, glued to the
  // number after it ("-1") or standing alone ("-x").
  bool read_sign() {
    const char32_t c = t_[pos_];
    if (c != '-' && c != '+') return false;
    if (tokens_.empty() || last_is(TokenType::Text))
      lex_error(line(), "unexpected character " + std::string(1, char(c)));
    const TokenType last = tokens_.back().type;
    if (last == TokenType::Identifier || last == TokenType::Number || last == TokenType::String ||
        last == TokenType::CloseParen || last == TokenType::CloseSquare) {
      return false;
    }
    const int at = line();
    ++pos_;
    std::string num = read_number_text();
    push(num.empty() ? TokenType::Unary : TokenType::Number, std::string(1, char(c)) + num, at);
    return true;
  }

  std::string read_number_text(bool allow_fraction = true) {
    std::string num = consume_while(is_digit);
    if (allow_fraction && !num.empty() && pos_ + 1 < t_.size() && t_[pos_] == '.' &&
        is_digit(t_[pos_ + 1])) {
      ++pos_;
      num += "." + consume_while(is_digit);
    }
    return num;
  }

  void read_in_tag() {
    if (pos_ >= t_.size()) return;
    if (read_sign()) return;
    const int at = line();
    for (const auto& [symbol, type] : kSymbols) {
      if (type == TokenType::CloseExpression && curly_depth_ > 0) continue;  // {"a": {"b": 1}}
      if (!starts_with(symbol)) continue;
      std::string text;
      for (char32_t c : symbol) utf8_append(text, c);
      push(type, text, at);
      if (type == TokenType::OpenExpression) curly_depth_ = 0;
      if (type == TokenType::OpenCurly) ++curly_depth_;
      if (type == TokenType::CloseCurly) --curly_depth_;
      pos_ += symbol.size();
      return;
    }
    const char32_t c = t_[pos_];
    if (c == '\'' || c == '"') {
      ++pos_;
      std::string s = consume_while([c](char32_t x) { return x != c; }, /*escapes=*/true);
      if (pos_ >= t_.size()) lex_error(at, "string is never closed");
      ++pos_;
      return push(TokenType::String, std::move(s), at);
    }
    if (is_digit(c)) return push(TokenType::Number, read_number_text(!last_is(TokenType::Dot)), at);
    if (is_word(c)) return push(TokenType::Identifier, consume_while(is_word), at);
    std::string shown;
    utf8_append(shown, c);
    lex_error(at, "unexpected character '" + shown + "' inside a tag");
  }
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) {
  return Lexer(preprocess(source)).run();
}

std::string describe(TokenType type) {
  switch (type) {
    case TokenType::Text:
      return "text";
    case TokenType::Number:
      return "a number";
    case TokenType::String:
      return "a string";
    case TokenType::Identifier:
      return "a name";
    case TokenType::Equals:
      return "'='";
    case TokenType::OpenParen:
      return "'('";
    case TokenType::CloseParen:
      return "')'";
    case TokenType::OpenStatement:
      return "'{%'";
    case TokenType::CloseStatement:
      return "'%}'";
    case TokenType::OpenExpression:
      return "'{{'";
    case TokenType::CloseExpression:
      return "'}}'";
    case TokenType::OpenSquare:
      return "'['";
    case TokenType::CloseSquare:
      return "']'";
    case TokenType::OpenCurly:
      return "'{'";
    case TokenType::CloseCurly:
      return "'}'";
    case TokenType::Comma:
      return "','";
    case TokenType::Dot:
      return "'.'";
    case TokenType::Colon:
      return "':'";
    case TokenType::Pipe:
      return "'|'";
    case TokenType::Additive:
      return "an operator";
    case TokenType::Multiplicative:
      return "an operator";
    case TokenType::Power:
      return "'**'";
    case TokenType::Comparison:
      return "a comparison";
    case TokenType::Unary:
      return "a sign";
    case TokenType::Comment:
      return "a comment";
  }
  return "?";
}

}  // namespace tinylm::jinja
