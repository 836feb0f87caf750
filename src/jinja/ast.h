// The syntax tree of a template, @huggingface/jinja's: a template is a list of nodes
// rendered in turn; text and {{ expressions }} print their value, statements ({% %})
// print what their bodies render. Every node keeps its line for error messages.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tinylm::jinja {

enum class NodeKind {
  // statements
  If,
  For,
  Set,
  Macro,
  CallBlock,
  FilterBlock,
  Break,
  Continue,
  Comment,
  // expressions (text between tags is a StringLiteral)
  IntLiteral,
  FloatLiteral,
  StringLiteral,
  Identifier,
  ListLiteral,
  TupleLiteral,
  DictLiteral,
  Member,
  Slice,
  Call,
  KeywordArgument,
  Unary,
  Binary,
  Filter,
  Test,
  Ternary,
  Select
};

struct Node {
  Node(NodeKind k, int l) : kind(k), line(l) {}
  virtual ~Node() = default;
  NodeKind kind;
  int line;
};
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

template <class T>
const T& as(const Node& n) {
  return static_cast<const T&>(n);
}

struct IfNode : Node {
  IfNode(int l) : Node(NodeKind::If, l) {}
  NodePtr test;
  Body body, alternate;  // an elif is an IfNode alone in alternate
};

struct ForNode : Node {
  ForNode(int l) : Node(NodeKind::For, l) {}
  NodePtr target;    // an Identifier, or a TupleLiteral of them
  NodePtr iterable;  // a Select node for `for x in xs if cond`
  Body body, else_body;
};

struct SetNode : Node {
  SetNode(int l) : Node(NodeKind::Set, l) {}
  NodePtr target;  // Identifier, TupleLiteral of Identifiers, or Member (ns.attr)
  NodePtr value;   // null for {% set x %}...{% endset %}
  Body body;
};

// A macro's parameter: a name, with a default value or none.
struct Parameter {
  std::string name;
  NodePtr default_value;
};

struct MacroNode : Node {
  MacroNode(int l) : Node(NodeKind::Macro, l) {}
  std::string name;
  std::vector<Parameter> params;
  Body body;
  bool uses_varargs = false, uses_kwargs = false;
};

struct CallBlockNode : Node {
  CallBlockNode(int l) : Node(NodeKind::CallBlock, l) {}
  NodePtr call;  // a Call node: the macro and its arguments
  std::vector<Parameter> caller_params;
  Body body;  // what caller() renders
  bool uses_varargs = false, uses_kwargs = false;
};

struct FilterBlockNode : Node {
  FilterBlockNode(int l) : Node(NodeKind::FilterBlock, l) {}
  NodePtr filter;  // a Filter node whose operand is empty: the body's text goes there
  Body body;
};

struct LeafNode : Node {  // Break, Continue, Comment
  using Node::Node;
};

struct IntNode : Node {
  IntNode(int64_t v, int l) : Node(NodeKind::IntLiteral, l), value(v) {}
  int64_t value;
};

struct FloatNode : Node {
  FloatNode(double v, int l) : Node(NodeKind::FloatLiteral, l), value(v) {}
  double value;
};

struct StringNode : Node {  // a string literal, or text between tags
  StringNode(std::string v, int l) : Node(NodeKind::StringLiteral, l), value(std::move(v)) {}
  std::string value;
};

struct IdentifierNode : Node {
  IdentifierNode(std::string n, int l) : Node(NodeKind::Identifier, l), name(std::move(n)) {}
  std::string name;
};

struct ListNode : Node {  // ListLiteral or TupleLiteral
  using Node::Node;
  Body items;
};

struct DictNode : Node {
  DictNode(int l) : Node(NodeKind::DictLiteral, l) {}
  std::vector<std::pair<NodePtr, NodePtr>> entries;
};

struct MemberNode : Node {  // object.name, object[expr], object[slice]
  MemberNode(int l) : Node(NodeKind::Member, l) {}
  NodePtr object, property;
  bool computed = false;  // [] rather than .
};

struct SliceNode : Node {  // start:stop:step, each may be absent
  SliceNode(int l) : Node(NodeKind::Slice, l) {}
  NodePtr start, stop, step;
};

struct CallNode : Node {
  CallNode(int l) : Node(NodeKind::Call, l) {}
  NodePtr callee;
  Body args;  // expressions and KeywordArgument nodes
};

struct KeywordNode : Node {
  KeywordNode(int l) : Node(NodeKind::KeywordArgument, l) {}
  std::string name;
  NodePtr value;
};

struct UnaryNode : Node {  // not, -, +
  UnaryNode(int l) : Node(NodeKind::Unary, l) {}
  std::string op;
  NodePtr operand;
};

struct BinaryNode : Node {
  BinaryNode(int l) : Node(NodeKind::Binary, l) {}
  std::string op;  // or and == != < > <= >= in "not in" + - ~ * / // % **
  NodePtr left, right;
};

struct FilterNode : Node {
  FilterNode(int l) : Node(NodeKind::Filter, l) {}
  NodePtr operand;
  std::string name;
  bool called = false;  // `x | f(...)`, even with no arguments, is not `x | f`
  Body args;
};

struct TestNode : Node {
  TestNode(int l) : Node(NodeKind::Test, l) {}
  NodePtr operand;
  bool negate = false;
  std::string name;
};

struct TernaryNode : Node {  // a if cond else b
  TernaryNode(int l) : Node(NodeKind::Ternary, l) {}
  NodePtr condition, if_true, if_false;
};

struct SelectNode : Node {  // a if cond (undefined when cond is false)
  SelectNode(int l) : Node(NodeKind::Select, l) {}
  NodePtr value, test;
};

}  // namespace tinylm::jinja
