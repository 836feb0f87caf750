#include "jinja/evaluator.h"

#include <climits>

#include "jinja/error.h"
#include "jinja/js_text.h"

namespace tinylm::jinja {
namespace {

// {% break %} and {% continue %} unwind to their loop (and discard what the loop body
// rendered so far in that iteration, as @huggingface/jinja does).
struct BreakSignal {};
struct ContinueSignal {};

// An error that already names its line (the innermost statement's).
struct LocatedError : TemplateError {
  using TemplateError::TemplateError;
};

// A namespace holds no namespace, not even inside a list or dict: so no value can hold
// itself (a cycle that printing would follow forever and that would never be freed).
void require_no_namespace(const Value& v) {
  if (v.is(Kind::Namespace)) fail("a namespace cannot hold a namespace");
  if (v.is(Kind::List))
    for (const Value& item : v.as_list()) require_no_namespace(item);
  if (v.is(Kind::Dict))
    for (const auto& item : v.as_dict().items) require_no_namespace(item.second);
}

// Binds a loop item to the loop's name(s): `for a, b in pairs` needs lists of two.
void bind_target(const Node& target, const Value& item, Environment& scope) {
  if (target.kind == NodeKind::Identifier) return scope.set(as<IdentifierNode>(target).name, item);
  const Body& names = as<ListNode>(target).items;
  if (!item.is(Kind::List) || item.is_tuple())
    fail("cannot unpack a " + kind_name(item) + " in a for loop");
  if (item.as_list().size() != names.size())
    fail(std::string("too ") + (names.size() > item.as_list().size() ? "few" : "many") +
         " items to unpack in a for loop");
  for (size_t i = 0; i < names.size(); ++i)
    scope.set(as<IdentifierNode>(*names[i]).name, item.as_list()[i]);
}

Value loop_info(size_t i, const std::vector<Value>& items) {
  const auto n = static_cast<int64_t>(items.size()), k = static_cast<int64_t>(i);
  Dict loop;
  loop.set("index", Value::integer(k + 1));
  loop.set("index0", Value::integer(k));
  loop.set("revindex", Value::integer(n - k));
  loop.set("revindex0", Value::integer(n - k - 1));
  loop.set("first", Value::boolean(k == 0));
  loop.set("last", Value::boolean(k == n - 1));
  loop.set("length", Value::integer(n));
  loop.set("previtem", i > 0 ? items[i - 1] : Value());
  loop.set("nextitem", k < n - 1 ? items[i + 1] : Value());
  return Value::dict(std::move(loop));
}

}  // namespace

Value Environment::lookup(const std::string& name) const {
  // Every scope has its own `namespace` (a set in an outer scope does not hide it).
  if (name == "namespace" && !vars_.count(name)) {
    static const Value kNamespace = Value::function([](const CallArgs& args, const EnvPtr&) {
      Dict entries;
      if (args.positional.size() > 1) fail("namespace() takes at most one positional argument");
      if (!args.positional.empty()) {
        const Value& source = args.positional[0];
        if (!source.is(Kind::Dict)) fail("namespace() takes a dict, not a " + kind_name(source));
        entries = source.as_dict();
      }
      for (const auto& [k, v] : args.keywords) entries.set(k, v);
      for (const auto& [k, v] : entries.items) require_no_namespace(v);
      return Value::namespace_of(std::move(entries));
    });
    return kNamespace;
  }
  for (const Environment* env = this; env; env = env->parent_.get()) {
    auto it = env->vars_.find(name);
    if (it != env->vars_.end()) return it->second;
  }
  return Value();
}

std::string Evaluator::render(const Body& program, const EnvPtr& env) {
  stack_base_ = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  try {
    return block(program, env);
  } catch (const BreakSignal&) {
    fail("{% break %} outside a for loop");
  } catch (const ContinueSignal&) {
    fail("{% continue %} outside a for loop");
  }
}

std::string Evaluator::block(const Body& body, const EnvPtr& env) {
  std::string out;
  for (const NodePtr& node : body) {
    try {
      const Value v = eval(*node, env);
      if (!v.is(Kind::None) && !v.is(Kind::Undefined)) out += to_output(v);
      if (out.size() > max_bytes_)
        fail("the template renders more than " + std::to_string(max_bytes_) + " bytes");
    } catch (const RaisedException&) {
      throw;
    } catch (const LocatedError&) {
      throw;
    } catch (const TemplateError& e) {
      throw LocatedError("line " + std::to_string(node->line) + ": " + e.what());
    }
  }
  return out;
}

// The stack a render may use (nested expressions, blocks, macro calls): far more than chat
// templates need, far less than a thread has; measured rather than counted, because a
// level's frames differ between builds (a sanitizer's are several times larger).
constexpr uintptr_t kMaxStackBytes = 1 << 20;

Value Evaluator::eval(const Node& node, const EnvPtr& env) {
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (stack_base_ > here && stack_base_ - here > kMaxStackBytes)
    fail("the template nests too deeply (a macro that calls itself without end?)");
  if (++steps_ > max_steps_)
    fail("the template takes more than " + std::to_string(max_steps_) + " steps");
  Value v = eval_node(node, env);
  const bool too_big = (v.is(Kind::String) && v.as_string().size() > max_bytes_) ||
                       (v.is(Kind::List) && v.as_list().size() > max_bytes_ / 16);
  if (too_big)
    fail("the template builds a value larger than " + std::to_string(max_bytes_) + " bytes");
  return v;
}

Value Evaluator::eval_node(const Node& node, const EnvPtr& env) {
  switch (node.kind) {
    case NodeKind::If:
      return eval_if(as<IfNode>(node), env);
    case NodeKind::For:
      return eval_for(as<ForNode>(node), env);
    case NodeKind::Set:
      return eval_set(as<SetNode>(node), env);
    case NodeKind::Macro:
      return eval_macro(as<MacroNode>(node), env);
    case NodeKind::CallBlock:
      return eval_call_block(as<CallBlockNode>(node), env);
    case NodeKind::FilterBlock: {
      const auto& fb = as<FilterBlockNode>(node);
      return apply_filter(*this, Value::string(block(fb.body, env)), as<FilterNode>(*fb.filter),
                          env);
    }
    case NodeKind::Break:
      throw BreakSignal{};
    case NodeKind::Continue:
      throw ContinueSignal{};
    case NodeKind::Comment:
      return Value::none();
    case NodeKind::IntLiteral:
      return Value::integer(as<IntNode>(node).value);
    case NodeKind::FloatLiteral:
      return Value::number(as<FloatNode>(node).value);
    case NodeKind::StringLiteral:
      return Value::string(as<StringNode>(node).value);
    case NodeKind::Identifier:
      return env->lookup(as<IdentifierNode>(node).name);
    case NodeKind::ListLiteral:
    case NodeKind::TupleLiteral:
      return eval_literal_list(as<ListNode>(node), env);
    case NodeKind::DictLiteral:
      return eval_dict(as<DictNode>(node), env);
    case NodeKind::Member:
      return eval_member(as<MemberNode>(node), env);
    case NodeKind::Call:
      return eval_call(as<CallNode>(node), env);
    case NodeKind::Unary:
      return eval_unary(as<UnaryNode>(node), env);
    case NodeKind::Binary:
      return eval_binary(as<BinaryNode>(node), env);
    case NodeKind::Filter: {
      const auto& f = as<FilterNode>(node);
      return apply_filter(*this, eval(*f.operand, env), f, env);
    }
    case NodeKind::Test: {
      const auto& t = as<TestNode>(node);
      const bool result = run_test(t.name, eval(*t.operand, env), nullptr);
      return Value::boolean(t.negate ? !result : result);
    }
    case NodeKind::Ternary: {
      const auto& t = as<TernaryNode>(node);
      return eval(truthy(eval(*t.condition, env)) ? *t.if_true : *t.if_false, env);
    }
    case NodeKind::Select: {
      const auto& s = as<SelectNode>(node);
      return truthy(eval(*s.test, env)) ? eval(*s.value, env) : Value();
    }
    case NodeKind::Slice:
    case NodeKind::KeywordArgument:
      break;
  }
  fail("this expression cannot stand here");
}

Value Evaluator::eval_if(const IfNode& node, const EnvPtr& env) {
  return Value::string(block(truthy(eval(*node.test, env)) ? node.body : node.alternate, env));
}

Value Evaluator::eval_for(const ForNode& node, const EnvPtr& env) {
  auto scope = std::make_shared<Environment>(env);
  const Node* test = nullptr;
  Value iterable;
  if (node.iterable->kind == NodeKind::Select) {
    iterable = eval(*as<SelectNode>(*node.iterable).value, scope);
    test = as<SelectNode>(*node.iterable).test.get();
  } else {
    iterable = eval(*node.iterable, scope);
  }
  std::vector<Value> all;
  if (iterable.is(Kind::List)) {
    all = iterable.as_list();
  } else if (iterable.is(Kind::Dict)) {
    for (const auto& item : iterable.as_dict().items) all.push_back(Value::string(item.first));
  } else {
    fail("a for loop needs a list or a dict, not a " + kind_name(iterable));
  }
  // `for x in xs if cond` filters first, so loop.index and loop.length count what stays.
  std::vector<Value> items;
  for (const Value& item : all) {
    auto item_scope = std::make_shared<Environment>(scope);
    bind_target(*node.target, item, *item_scope);
    if (test && !truthy(eval(*test, item_scope))) continue;
    items.push_back(item);
  }
  std::string out;
  bool rendered_any = false;
  for (size_t i = 0; i < items.size(); ++i) {
    scope->set("loop", loop_info(i, items));
    bind_target(*node.target, items[i], *scope);
    try {
      out += block(node.body, scope);
    } catch (const ContinueSignal&) {
      continue;
    } catch (const BreakSignal&) {
      break;
    }
    rendered_any = true;
  }
  if (!rendered_any) out += block(node.else_body, scope);
  return Value::string(std::move(out));
}

Value Evaluator::eval_set(const SetNode& node, const EnvPtr& env) {
  const Value rhs = node.value ? eval(*node.value, env) : Value::string(block(node.body, env));
  const Node& target = *node.target;
  if (target.kind == NodeKind::Identifier) {
    env->set(as<IdentifierNode>(target).name, rhs);
  } else if (target.kind == NodeKind::TupleLiteral) {
    const Body& names = as<ListNode>(target).items;
    if (!rhs.is(Kind::List)) fail("cannot unpack a " + kind_name(rhs) + " in {% set %}");
    if (rhs.as_list().size() != names.size())
      fail(std::string("too ") + (names.size() > rhs.as_list().size() ? "few" : "many") +
           " items to unpack in {% set %}");
    for (size_t i = 0; i < names.size(); ++i)
      env->set(as<IdentifierNode>(*names[i]).name, rhs.as_list()[i]);
  } else {
    const auto& member = as<MemberNode>(target);
    const Value object = eval(*member.object, env);
    if (!object.is(Kind::Namespace))
      fail("{% set x.attr %} needs a namespace(), not a " + kind_name(object));
    if (member.property->kind != NodeKind::Identifier) fail("{% set %} needs a name after '.'");
    require_no_namespace(rhs);
    object.as_dict().set(as<IdentifierNode>(*member.property).name, rhs);
  }
  return Value::none();
}

// A macro sees the scope it is called from (as in @huggingface/jinja), plus its arguments.
Value Evaluator::eval_macro(const MacroNode& node, const EnvPtr& env) {
  const MacroNode* macro = &node;
  env->set(node.name, Value::function([this, macro](const CallArgs& args, const EnvPtr& caller) {
             auto scope = std::make_shared<Environment>(caller);
             bind_arguments("macro '" + macro->name + "'", macro->params, macro->uses_varargs,
                            macro->uses_kwargs, args, scope);
             return Value::string(block(macro->body, scope));
           }));
  return Value::none();
}

Value Evaluator::eval_call_block(const CallBlockNode& node, const EnvPtr& env) {
  const CallBlockNode* call_block = &node;
  const Value caller =
      Value::function([this, call_block, env](const CallArgs& args, const EnvPtr&) {
        auto scope = std::make_shared<Environment>(env);
        bind_arguments("the call block", call_block->caller_params, call_block->uses_varargs,
                       call_block->uses_kwargs, args, scope);
        return Value::string(block(call_block->body, scope));
      });
  const auto& call = as<CallNode>(*node.call);
  const CallArgs args = eval_args(call.args, env);
  const Value fn = eval(*call.callee, env);
  if (!fn.is(Kind::Function)) fail("{% call %} needs a macro, not a " + kind_name(fn));
  auto scope = std::make_shared<Environment>(env);
  scope->set("caller", caller);
  return fn.as_function()(args, scope);
}

void Evaluator::bind_arguments(const std::string& what, const std::vector<Parameter>& params,
                               bool uses_varargs, bool uses_kwargs, const CallArgs& args,
                               const EnvPtr& scope) {
  std::vector<std::pair<std::string, Value>> keywords = args.keywords;
  std::vector<const Parameter*> pending_defaults;
  for (size_t i = 0; i < params.size(); ++i) {
    const Parameter& p = params[i];
    Value value;
    bool given = i < args.positional.size();
    if (given) value = args.positional[i];
    for (auto it = keywords.begin(); !given && it != keywords.end(); ++it) {
      if (it->first != p.name) continue;
      value = it->second;
      keywords.erase(it);
      given = true;
      break;
    }
    if (!given && p.default_value) pending_defaults.push_back(&p);
    scope->set(p.name, value);
  }
  if (uses_kwargs) {
    Dict rest;
    for (auto& [k, v] : keywords) rest.set(k, v);
    scope->set("kwargs", Value::dict(std::move(rest)));
  } else if (!keywords.empty()) {
    fail(what + " takes no keyword argument '" + keywords.front().first + "'");
  }
  if (uses_varargs) {
    std::vector<Value> rest;
    for (size_t i = params.size(); i < args.positional.size(); ++i)
      rest.push_back(args.positional[i]);
    scope->set("varargs", Value::list(std::move(rest)));
  } else if (args.positional.size() > params.size()) {
    fail(what + " takes at most " + std::to_string(params.size()) + " argument(s)");
  }
  for (const Parameter* p : pending_defaults) scope->set(p->name, eval(*p->default_value, scope));
}

Value Evaluator::eval_member(const MemberNode& node, const EnvPtr& env) {
  const Value object = eval(*node.object, env);
  if (node.computed && node.property->kind == NodeKind::Slice) {
    const auto& s = as<SliceNode>(*node.property);
    const auto part = [&](const NodePtr& p) { return p ? eval(*p, env) : Value(); };
    return slice_of(object, part(s.start), part(s.stop), part(s.step));
  }
  Value property;
  if (node.computed) {
    property = eval(*node.property, env);
  } else if (node.property->kind == NodeKind::IntLiteral) {
    property = Value::integer(as<IntNode>(*node.property).value);
  } else {
    property = Value::string(as<IdentifierNode>(*node.property).name);
  }
  return member_of(object, property);
}

CallArgs Evaluator::eval_args(const Body& args, const EnvPtr& env) {
  CallArgs out;
  for (const NodePtr& a : args)
    if (a->kind != NodeKind::KeywordArgument) out.positional.push_back(eval(*a, env));
  for (const NodePtr& a : args) {
    if (a->kind != NodeKind::KeywordArgument) continue;
    const auto& kw = as<KeywordNode>(*a);
    if (out.keyword(kw.name)) fail("keyword argument '" + kw.name + "' given twice");
    out.keywords.emplace_back(kw.name, eval(*kw.value, env));
  }
  return out;
}

Value Evaluator::eval_call(const CallNode& node, const EnvPtr& env) {
  const CallArgs args = eval_args(node.args, env);
  const Value fn = eval(*node.callee, env);
  if (!fn.is(Kind::Function)) fail("cannot call a " + kind_name(fn) + " (not a function)");
  return fn.as_function()(args, env);
}

Value Evaluator::eval_unary(const UnaryNode& node, const EnvPtr& env) {
  const Value v = eval(*node.operand, env);
  if (node.op == "not") return Value::boolean(!truthy(v));
  const double sign = node.op == "-" ? -1 : 1;
  if (v.is(Kind::Float)) return Value::number(sign * v.as_float());
  if (v.is(Kind::Int)) {
    if (v.as_int() == INT64_MIN) fail("integer out of range");
    return Value::integer(static_cast<int64_t>(sign) * v.as_int());
  }
  if (v.is(Kind::Bool)) return Value::integer(static_cast<int64_t>(sign) * (v.as_bool() ? 1 : 0));
  fail("unary " + node.op + " needs a number, not a " + kind_name(v));
}

Value Evaluator::eval_binary(const BinaryNode& node, const EnvPtr& env) {
  const Value left = eval(*node.left, env);
  if (node.op == "and") return truthy(left) ? eval(*node.right, env) : left;
  if (node.op == "or") return truthy(left) ? left : eval(*node.right, env);
  return binary_op(node.op, left, eval(*node.right, env));
}

Value Evaluator::eval_literal_list(const ListNode& node, const EnvPtr& env) {
  std::vector<Value> items;
  for (const NodePtr& item : node.items) items.push_back(eval(*item, env));
  return Value::list(std::move(items), node.kind == NodeKind::TupleLiteral);
}

Value Evaluator::eval_dict(const DictNode& node, const EnvPtr& env) {
  Dict d;
  for (const auto& [k, v] : node.entries) {
    const Value key = eval(*k, env);
    if (!key.is(Kind::String)) fail("dict keys must be strings, not " + kind_name(key));
    d.set(key.as_string(), eval(*v, env));
  }
  return Value::dict(std::move(d));
}

}  // namespace tinylm::jinja
