// Tokens to a syntax tree, with @huggingface/jinja's grammar and precedence (lowest
// first): `a if c else b`, or, and, not, comparisons and in / not in, + - ~, * / // %,
// **, is-tests, | filters, unary signs, calls and member access.
//
// What tinylm cannot render exactly is refused here, when the template is loaded,
// naming the construct and its line: tags other than if/elif/else, for, set, macro,
// call, filter, break and continue ({% include %}, {% extends %}, {% block %},
// {% raw %}, {% with %}, {% do %} ...), filters and tests that @huggingface/jinja does
// not have, and * / ** argument unpacking.
#pragma once
#include <vector>

#include "jinja/ast.h"
#include "jinja/lexer.h"

namespace tinylm::jinja {

// TemplateError "line N: ..." for a template that does not parse or that uses a
// construct outside the subset.
Body parse(const std::vector<Token>& tokens);

// The filters and tests templates may name (the parser checks them; the evaluator
// implements them).
bool is_known_filter(const std::string& name);
bool is_known_test(const std::string& name);

}  // namespace tinylm::jinja
