#include "jinja/parser.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <set>

#include "jinja/error.h"

namespace tinylm::jinja {
namespace {

const std::set<std::string> kFilters = {
    "safe",       "tojson", "list",    "first",    "last",  "length", "reverse",    "sort",
    "join",       "string", "unique",  "upper",    "lower", "title",  "capitalize", "trim",
    "indent",     "int",    "float",   "abs",      "items", "bool",   "default",    "selectattr",
    "rejectattr", "map",    "replace", "dictsort", "keys",  "values", "select",     "reject"};

const std::set<std::string> kTests = {"boolean",  "callable",  "odd",      "even",   "false",
                                      "true",     "none",      "string",   "number", "integer",
                                      "iterable", "mapping",   "sequence", "lower",  "upper",
                                      "defined",  "undefined", "equalto",  "eq"};

// The tags a template may open; every other name after {% is refused.
const std::set<std::string> kTags = {"set",  "if",    "macro",    "for",
                                     "call", "break", "continue", "filter"};

class Parser {
 public:
  explicit Parser(const std::vector<Token>& tokens) : t_(tokens) {}

  Body program() {
    Body body;
    while (cur_ < t_.size()) body.push_back(any());
    return body;
  }

 private:
  const std::vector<Token>& t_;
  size_t cur_ = 0;
  // How deeply expressions and blocks nest here: bounded, so that a crafted template
  // cannot overflow the stack.
  int depth_ = 0;
  struct Nesting {
    Parser& p;
    explicit Nesting(Parser& parser) : p(parser) {
      if (++p.depth_ > 200) p.fail(p.line(), "the template nests deeper than 200 levels");
    }
    ~Nesting() { --p.depth_; }
  };
  // The macros and call blocks being parsed: whether their bodies name varargs / kwargs.
  std::vector<std::pair<bool, bool>*> special_args_;

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw TemplateError("line " + std::to_string(line) + ": " + message);
  }
  int line() const { return cur_ < t_.size() ? t_[cur_].line : (t_.empty() ? 1 : t_.back().line); }
  std::string found() const {
    if (cur_ >= t_.size()) return "the end of the template";
    const Token& tok = t_[cur_];
    if (tok.type == TokenType::Identifier || tok.type == TokenType::Number)
      return "'" + tok.value + "'";
    return describe(tok.type);
  }

  bool is(TokenType type, size_t ahead = 0) const {
    return cur_ + ahead < t_.size() && t_[cur_ + ahead].type == type;
  }
  bool is_identifier(const char* name, size_t ahead = 0) const {
    return is(TokenType::Identifier, ahead) && t_[cur_ + ahead].value == name;
  }
  bool is_statement(std::initializer_list<const char*> names) const {
    if (!is(TokenType::OpenStatement) || !is(TokenType::Identifier, 1)) return false;
    return std::any_of(names.begin(), names.end(),
                       [&](const char* n) { return t_[cur_ + 1].value == n; });
  }
  const Token& expect(TokenType type, const std::string& what) {
    if (!is(type)) fail(line(), "expected " + what + ", found " + found());
    return t_[cur_++];
  }
  void expect_end_tag(const char* name, const char* opened, int opened_line) {
    if (!is_statement({name}))
      fail(line(), std::string("expected {% ") + name + " %} to close the " + opened + " of line " +
                       std::to_string(opened_line) + ", found " + found());
    cur_ += 2;
    expect(TokenType::CloseStatement, "'%}'");
  }

  // Nodes until one of the tags in `until` (not consumed); the end of the template first
  // means the block is never closed.
  Body block_until(std::initializer_list<const char*> until, const char* opened, int opened_line) {
    Body body;
    while (!is_statement(until)) {
      if (cur_ >= t_.size())
        fail(opened_line,
             std::string("{% ") + opened + " %} is never closed (no {% end" + opened + " %})");
      body.push_back(any());
    }
    return body;
  }

  NodePtr any() {
    const Token& tok = t_[cur_];
    switch (tok.type) {
      case TokenType::Comment:
        ++cur_;
        return std::make_unique<LeafNode>(NodeKind::Comment, tok.line);
      case TokenType::Text:
        ++cur_;
        return std::make_unique<StringNode>(tok.value, tok.line);
      case TokenType::OpenStatement:
        return statement();
      case TokenType::OpenExpression: {
        ++cur_;
        NodePtr e = expression();
        expect(TokenType::CloseExpression, "'}}'");
        return e;
      }
      default:
        fail(tok.line, "unexpected " + found());
    }
  }

  NodePtr statement() {
    Nesting nesting(*this);
    const int at = t_[cur_].line;
    ++cur_;  // {%
    if (!is(TokenType::Identifier)) fail(at, "expected a tag name after {%, found " + found());
    const std::string name = t_[cur_].value;
    if (!kTags.count(name)) {
      if (name.rfind("end", 0) == 0 || name == "elif" || name == "else")
        fail(at, "{% " + name + " %} without an open block it could close");
      fail(at, "unsupported tag {% " + name +
                   " %} (tinylm renders if, for, set, macro, call, "
                   "filter, break and continue)");
    }
    ++cur_;
    if (name == "set") return set_statement(at);
    if (name == "if") {
      NodePtr node = if_statement(at);
      expect_end_tag("endif", "if", at);
      return node;
    }
    if (name == "for") return for_statement(at);
    if (name == "macro") return macro_statement(at);
    if (name == "call") return call_statement(at);
    if (name == "filter") return filter_statement(at);
    expect(TokenType::CloseStatement, "'%}'");
    return std::make_unique<LeafNode>(name == "break" ? NodeKind::Break : NodeKind::Continue, at);
  }

  NodePtr set_statement(int at) {
    auto node = std::make_unique<SetNode>(at);
    node->target = expression_sequence();
    check_assignable(*node->target);
    if (is(TokenType::Equals)) {
      ++cur_;
      node->value = expression_sequence();
    } else {
      expect(TokenType::CloseStatement, "'=' or '%}'");
      node->body = block_until({"endset"}, "set", at);
      cur_ += 2;
    }
    expect(TokenType::CloseStatement, "'%}'");
    return node;
  }

  void check_assignable(const Node& target) const {
    if (target.kind == NodeKind::Identifier) return;
    if (target.kind == NodeKind::TupleLiteral) {
      for (const NodePtr& item : as<ListNode>(target).items)
        if (item->kind != NodeKind::Identifier)
          fail(target.line, "{% set %} can unpack into names only");
      return;
    }
    if (target.kind == NodeKind::Member && !as<MemberNode>(target).computed) return;
    fail(target.line, "{% set %} assigns to a name, names, or a namespace attribute (ns.x)");
  }

  // After `if` (or `elif`): the test, the body, and an elif (a nested if) or an else.
  NodePtr if_statement(int at) {
    auto node = std::make_unique<IfNode>(at);
    node->test = expression();
    expect(TokenType::CloseStatement, "'%}'");
    node->body = block_until({"elif", "else", "endif"}, "if", at);
    if (is_statement({"elif"})) {
      const int elif_at = t_[cur_].line;
      cur_ += 2;
      node->alternate.push_back(if_statement(elif_at));
    } else if (is_statement({"else"})) {
      cur_ += 2;
      expect(TokenType::CloseStatement, "'%}'");
      node->alternate = block_until({"endif"}, "if", at);
    }
    return node;
  }

  NodePtr for_statement(int at) {
    auto node = std::make_unique<ForNode>(at);
    node->target = expression_sequence(/*primary=*/true);
    const Node& target = *node->target;
    const bool names =
        target.kind == NodeKind::Identifier ||
        (target.kind == NodeKind::TupleLiteral &&
         std::all_of(as<ListNode>(target).items.begin(), as<ListNode>(target).items.end(),
                     [](const NodePtr& n) { return n->kind == NodeKind::Identifier; }));
    if (!names) fail(at, "{% for %} needs a name or names before 'in'");
    if (!is_identifier("in")) fail(line(), "expected 'in' in {% for %}, found " + found());
    ++cur_;
    node->iterable = expression();
    expect(TokenType::CloseStatement, "'%}'");
    node->body = block_until({"endfor", "else"}, "for", at);
    if (is_statement({"else"})) {
      cur_ += 2;
      expect(TokenType::CloseStatement, "'%}'");
      node->else_body = block_until({"endfor"}, "for", at);
    }
    expect_end_tag("endfor", "for", at);
    return node;
  }

  NodePtr macro_statement(int at) {
    auto node = std::make_unique<MacroNode>(at);
    NodePtr name = primary();
    if (name->kind != NodeKind::Identifier) fail(at, "expected the macro's name after {% macro");
    node->name = as<IdentifierNode>(*name).name;
    node->params = parameters(args(/*parameters=*/true));
    expect(TokenType::CloseStatement, "'%}'");
    std::pair<bool, bool> special{false, false};
    special_args_.push_back(&special);
    node->body = block_until({"endmacro"}, "macro", at);
    special_args_.pop_back();
    std::tie(node->uses_varargs, node->uses_kwargs) = special;
    expect_end_tag("endmacro", "macro", at);
    return node;
  }

  NodePtr call_statement(int at) {
    auto node = std::make_unique<CallBlockNode>(at);
    if (is(TokenType::OpenParen)) node->caller_params = parameters(args(/*parameters=*/true));
    auto call = std::make_unique<CallNode>(at);
    call->callee = primary();
    if (call->callee->kind != NodeKind::Identifier)
      fail(at, "expected a macro's name after {% call");
    call->args = args(/*parameters=*/false);
    node->call = std::move(call);
    expect(TokenType::CloseStatement, "'%}'");
    std::pair<bool, bool> special{false, false};
    special_args_.push_back(&special);
    node->body = block_until({"endcall"}, "call", at);
    special_args_.pop_back();
    std::tie(node->uses_varargs, node->uses_kwargs) = special;
    expect_end_tag("endcall", "call", at);
    return node;
  }

  NodePtr filter_statement(int at) {
    auto node = std::make_unique<FilterBlockNode>(at);
    node->filter = filter_of(nullptr);
    expect(TokenType::CloseStatement, "'%}'");
    node->body = block_until({"endfilter"}, "filter", at);
    expect_end_tag("endfilter", "filter", at);
    return node;
  }

  std::vector<Parameter> parameters(Body list) {
    std::vector<Parameter> out;
    for (NodePtr& p : list) {
      if (p->kind == NodeKind::Identifier) {
        out.push_back({as<IdentifierNode>(*p).name, nullptr});
      } else {
        auto& kw = static_cast<KeywordNode&>(*p);
        out.push_back({kw.name, std::move(kw.value)});
      }
    }
    return out;
  }

  NodePtr expression_sequence(bool primary_only = false) {
    const int at = line();
    NodePtr first = primary_only ? primary() : expression();
    if (!is(TokenType::Comma)) return first;
    auto tuple = std::make_unique<ListNode>(NodeKind::TupleLiteral, at);
    tuple->items.push_back(std::move(first));
    while (is(TokenType::Comma)) {
      ++cur_;
      tuple->items.push_back(primary_only ? primary() : expression());
    }
    return tuple;
  }

  NodePtr expression() {
    Nesting nesting(*this);
    NodePtr a = logical_or();
    if (!is_identifier("if")) return a;
    const int at = t_[cur_++].line;
    NodePtr test = logical_or();
    if (is_identifier("else")) {
      ++cur_;
      auto node = std::make_unique<TernaryNode>(at);
      node->condition = std::move(test);
      node->if_true = std::move(a);
      node->if_false = expression();
      return node;
    }
    auto node = std::make_unique<SelectNode>(at);
    node->value = std::move(a);
    node->test = std::move(test);
    return node;
  }

  NodePtr binary(std::string op, NodePtr left, NodePtr right, int at) {
    auto node = std::make_unique<BinaryNode>(at);
    node->op = std::move(op);
    node->left = std::move(left);
    node->right = std::move(right);
    return node;
  }

  NodePtr logical_or() {
    NodePtr left = logical_and();
    while (is_identifier("or")) {
      const int at = t_[cur_++].line;
      left = binary("or", std::move(left), logical_and(), at);
    }
    return left;
  }

  NodePtr logical_and() {
    NodePtr left = logical_not();
    while (is_identifier("and")) {
      const int at = t_[cur_++].line;
      left = binary("and", std::move(left), logical_not(), at);
    }
    return left;
  }

  NodePtr logical_not() {
    Nesting nesting(*this);
    NodePtr result;
    while (is_identifier("not")) {
      auto node = std::make_unique<UnaryNode>(t_[cur_++].line);
      node->op = "not";
      node->operand = logical_not();
      result = std::move(node);
    }
    return result ? std::move(result) : comparison();
  }

  NodePtr comparison() {
    NodePtr left = additive();
    while (true) {
      const int at = line();
      std::string op;
      if (is_identifier("not") && is_identifier("in", 1)) {
        op = "not in";
        cur_ += 2;
      } else if (is_identifier("in") || is(TokenType::Comparison)) {
        op = t_[cur_++].value;
      } else {
        return left;
      }
      left = binary(op, std::move(left), additive(), at);
    }
  }

  template <class Next>
  NodePtr left_assoc(TokenType type, Next next) {
    NodePtr left = (this->*next)();
    while (is(type)) {
      const Token& op = t_[cur_++];
      left = binary(op.value, std::move(left), (this->*next)(), op.line);
    }
    return left;
  }
  NodePtr additive() { return left_assoc(TokenType::Additive, &Parser::multiplicative); }
  NodePtr multiplicative() { return left_assoc(TokenType::Multiplicative, &Parser::power); }
  NodePtr power() { return left_assoc(TokenType::Power, &Parser::test); }

  NodePtr test() {
    NodePtr operand = filter();
    while (is_identifier("is")) {
      auto node = std::make_unique<TestNode>(t_[cur_++].line);
      node->negate = is_identifier("not");
      if (node->negate) ++cur_;
      NodePtr name = primary();
      if (name->kind != NodeKind::Identifier) fail(node->line, "expected a test's name after 'is'");
      node->name = as<IdentifierNode>(*name).name;
      if (!is_known_test(node->name)) fail(node->line, "unknown test '" + node->name + "'");
      node->operand = std::move(operand);
      operand = std::move(node);
    }
    return operand;
  }

  NodePtr filter() {
    NodePtr operand = unary_sign();
    while (is(TokenType::Pipe)) {
      ++cur_;
      operand = filter_of(std::move(operand));
    }
    return operand;
  }

  // The filter after a '|' (or {% filter): a name, or a name called with arguments.
  NodePtr filter_of(NodePtr operand) {
    auto node = std::make_unique<FilterNode>(line());
    NodePtr name = primary();
    if (name->kind != NodeKind::Identifier) fail(node->line, "expected a filter's name");
    node->name = as<IdentifierNode>(*name).name;
    if (!is_known_filter(node->name)) fail(node->line, "unknown filter '" + node->name + "'");
    if (is(TokenType::OpenParen)) {
      node->called = true;
      node->args = args(/*parameters=*/false);
      if (is(TokenType::Dot) || is(TokenType::OpenSquare) || is(TokenType::OpenParen))
        fail(node->line, "unsupported expression after the filter '" + node->name + "(...)'");
    }
    node->operand = std::move(operand);
    return node;
  }

  NodePtr unary_sign() {
    Nesting nesting(*this);
    if ((is(TokenType::Unary) || is(TokenType::Additive)) &&
        (t_[cur_].value == "-" || t_[cur_].value == "+")) {
      auto node = std::make_unique<UnaryNode>(t_[cur_].line);
      node->op = t_[cur_++].value;
      node->operand = unary_sign();
      return node;
    }
    NodePtr member = member_access(primary());
    return is(TokenType::OpenParen) ? call(std::move(member)) : std::move(member);
  }

  NodePtr call(NodePtr callee) {
    auto node = std::make_unique<CallNode>(callee->line);
    node->callee = std::move(callee);
    node->args = args(/*parameters=*/false);
    NodePtr result = member_access(std::move(node));
    return is(TokenType::OpenParen) ? call(std::move(result)) : std::move(result);
  }

  // ( a, b=1 ): a call's arguments, or (parameters) a macro's names with defaults.
  Body args(bool parameters) {
    expect(TokenType::OpenParen, "'('");
    Body list;
    std::set<std::string> names;
    bool keywords = false;
    while (!is(TokenType::CloseParen)) {
      const int at = line();
      if (is(TokenType::Power) || (is(TokenType::Multiplicative) && t_[cur_].value == "*"))
        fail(at, "argument unpacking (*args, **kwargs) is not supported");
      NodePtr arg = expression();
      if (is(TokenType::Equals)) {
        ++cur_;
        if (arg->kind != NodeKind::Identifier) fail(at, "expected a name before '='");
        auto kw = std::make_unique<KeywordNode>(at);
        kw->name = as<IdentifierNode>(*arg).name;
        kw->value = expression();
        arg = std::move(kw);
        keywords = true;
      } else if (keywords) {
        fail(at, parameters ? "a parameter without a default follows one with a default"
                            : "a positional argument follows a keyword argument");
      }
      if (parameters) {
        if (arg->kind != NodeKind::Identifier && arg->kind != NodeKind::KeywordArgument)
          fail(at, "expected a parameter name");
        const std::string& name = arg->kind == NodeKind::Identifier ? as<IdentifierNode>(*arg).name
                                                                    : as<KeywordNode>(*arg).name;
        if (!names.insert(name).second) fail(at, "parameter '" + name + "' is named twice");
      }
      list.push_back(std::move(arg));
      if (is(TokenType::Comma)) ++cur_;
    }
    ++cur_;  // )
    return list;
  }

  NodePtr member_access(NodePtr object) {
    while (is(TokenType::Dot) || is(TokenType::OpenSquare)) {
      auto node = std::make_unique<MemberNode>(t_[cur_].line);
      node->computed = t_[cur_++].type == TokenType::OpenSquare;
      if (node->computed) {
        node->property = subscript();
        expect(TokenType::CloseSquare, "']'");
      } else {
        node->property = primary();
        if (node->property->kind != NodeKind::Identifier &&
            node->property->kind != NodeKind::IntLiteral)
          fail(node->line, "expected a name after '.'");
      }
      node->object = std::move(object);
      object = std::move(node);
    }
    return object;
  }

  // What stands in [ ]: an expression, or a slice start:stop:step.
  NodePtr subscript() {
    const int at = line();
    std::vector<NodePtr> parts;
    bool slice = false;
    while (!is(TokenType::CloseSquare)) {
      if (cur_ >= t_.size()) fail(at, "'[' is never closed");
      if (is(TokenType::Colon)) {
        parts.push_back(nullptr);
        ++cur_;
        slice = true;
      } else {
        parts.push_back(expression());
        if (is(TokenType::Colon)) {
          ++cur_;
          slice = true;
        }
      }
    }
    if (parts.empty()) fail(at, "empty []");
    if (!slice) return std::move(parts[0]);
    if (parts.size() > 3) fail(at, "a slice has at most start:stop:step");
    auto node = std::make_unique<SliceNode>(at);
    parts.resize(3);
    node->start = std::move(parts[0]);
    node->stop = std::move(parts[1]);
    node->step = std::move(parts[2]);
    return node;
  }

  NodePtr number(const Token& tok) {
    const double v = std::strtod(tok.value.c_str(), nullptr);
    if (tok.value.find('.') != std::string::npos) return std::make_unique<FloatNode>(v, tok.line);
    if (std::fabs(v) >= 9.2e18) fail(tok.line, "integer " + tok.value + " is too large");
    return std::make_unique<IntNode>(static_cast<int64_t>(v), tok.line);
  }

  NodePtr primary() {
    if (cur_ >= t_.size()) fail(line(), "unexpected end of the template");
    const Token& tok = t_[cur_++];
    switch (tok.type) {
      case TokenType::Number:
        return number(tok);
      case TokenType::String: {
        std::string value = tok.value;  // 'a' 'b' is 'ab'
        while (is(TokenType::String)) value += t_[cur_++].value;
        return std::make_unique<StringNode>(std::move(value), tok.line);
      }
      case TokenType::Identifier:
        for (auto* special : special_args_) {
          if (tok.value == "varargs") special->first = true;
          if (tok.value == "kwargs") special->second = true;
        }
        return std::make_unique<IdentifierNode>(tok.value, tok.line);
      case TokenType::OpenParen: {
        NodePtr e = expression_sequence();
        expect(TokenType::CloseParen, "')'");
        return e;
      }
      case TokenType::OpenSquare: {
        auto list = std::make_unique<ListNode>(NodeKind::ListLiteral, tok.line);
        while (!is(TokenType::CloseSquare)) {
          if (cur_ >= t_.size()) fail(tok.line, "'[' is never closed");
          list->items.push_back(expression());
          if (is(TokenType::Comma)) ++cur_;
        }
        ++cur_;
        return list;
      }
      case TokenType::OpenCurly: {
        auto dict = std::make_unique<DictNode>(tok.line);
        while (!is(TokenType::CloseCurly)) {
          if (cur_ >= t_.size()) fail(tok.line, "'{' is never closed");
          NodePtr key = expression();
          expect(TokenType::Colon, "':' between a key and its value");
          dict->entries.emplace_back(std::move(key), expression());
          if (is(TokenType::Comma)) ++cur_;
        }
        ++cur_;
        return dict;
      }
      default:
        --cur_;
        fail(tok.line, "unexpected " + found());
    }
  }
};

}  // namespace

bool is_known_filter(const std::string& name) {
  return kFilters.count(name) > 0;
}
bool is_known_test(const std::string& name) {
  return kTests.count(name) > 0;
}

Body parse(const std::vector<Token>& tokens) {
  return Parser(tokens).program();
}

}  // namespace tinylm::jinja
