// Template text to tokens, as @huggingface/jinja's lexer does with the options its
// Template sets (trim_blocks and lstrip_blocks on, as transformers renders chat templates):
//   - one trailing newline of the template is dropped;
//   - lstrip_blocks: spaces and tabs before {% or {# at the start of a line go;
//   - trim_blocks: the newline right after %} or #} goes;
//   - {%- -%} {{- -}} {#- -#} strip the whitespace on their side;
//   - transformers' {% generation %} / {% endgeneration %} markers are removed.
// Text between tags is one Text token; inside a tag, words are Identifier tokens (the
// parser tells keywords apart). Every token keeps the line it starts on, in the text as
// written, for error messages.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tinylm::jinja {

enum class TokenType {
  Text,
  Number,
  String,
  Identifier,
  Equals,
  OpenParen,
  CloseParen,
  OpenStatement,
  CloseStatement,
  OpenExpression,
  CloseExpression,
  OpenSquare,
  CloseSquare,
  OpenCurly,
  CloseCurly,
  Comma,
  Dot,
  Colon,
  Pipe,
  Additive,
  Multiplicative,
  Power,
  Comparison,
  Unary,
  Comment
};

struct Token {
  TokenType type;
  std::string value;  // UTF-8; a string literal's value with its escapes applied
  int line;
};

// TemplateError "line N: ..." for text that is not a template (an unterminated string or
// comment, a character no token starts with, a bad escape).
std::vector<Token> tokenize(std::string_view source);

// "'%}'", "a string", "the end of the template" ... for messages.
std::string describe(TokenType type);

}  // namespace tinylm::jinja
