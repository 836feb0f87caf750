// Rendering a parsed template: scopes, statements, expressions, as @huggingface/jinja's
// Interpreter runs them. Internal to src/jinja (template.h is the public face).
#pragma once
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "jinja/ast.h"
#include "jinja/error.h"
#include "jinja/value.h"

namespace tinylm::jinja {

// One scope of names. A for loop, a macro call and a call block open one; `set` writes
// to the scope it runs in (so a set inside a loop stays in the loop, as in Jinja).
class Environment {
 public:
  explicit Environment(std::shared_ptr<Environment> parent = nullptr)
      : parent_(std::move(parent)) {}
  void set(const std::string& name, Value value) { vars_[name] = std::move(value); }
  bool has_own(const std::string& name) const { return vars_.count(name) > 0; }
  // The value of name in the nearest scope that has it; undefined when none has.
  Value lookup(const std::string& name) const;

 private:
  std::shared_ptr<Environment> parent_;
  std::unordered_map<std::string, Value> vars_;
};
using EnvPtr = std::shared_ptr<Environment>;

// The clock strftime_now() reads (local time by default; tests fix it).
using Clock = std::function<std::tm()>;

class Evaluator {
 public:
  Evaluator(int64_t max_steps, size_t max_bytes) : max_steps_(max_steps), max_bytes_(max_bytes) {}

  // The text program renders in env (which holds the globals and the caller's values).
  std::string render(const Body& program, const EnvPtr& env);

  Value eval(const Node& node, const EnvPtr& env);
  // Renders statements in turn; an error gets the line of the statement it came from.
  std::string block(const Body& body, const EnvPtr& env);
  CallArgs eval_args(const Body& args, const EnvPtr& env);

 private:
  Value eval_node(const Node& node, const EnvPtr& env);
  Value eval_if(const IfNode& node, const EnvPtr& env);
  Value eval_for(const ForNode& node, const EnvPtr& env);
  Value eval_set(const SetNode& node, const EnvPtr& env);
  Value eval_macro(const MacroNode& node, const EnvPtr& env);
  Value eval_call_block(const CallBlockNode& node, const EnvPtr& env);
  Value eval_member(const MemberNode& node, const EnvPtr& env);
  Value eval_call(const CallNode& node, const EnvPtr& env);
  Value eval_unary(const UnaryNode& node, const EnvPtr& env);
  Value eval_binary(const BinaryNode& node, const EnvPtr& env);
  Value eval_literal_list(const ListNode& node, const EnvPtr& env);
  Value eval_dict(const DictNode& node, const EnvPtr& env);
  // Where render() started on the stack: a macro that calls itself forever is an error
  // when the render has used a megabyte of stack, not a crash.
  uintptr_t stack_base_ = 0;
  int64_t steps_ = 0, max_steps_;
  size_t max_bytes_;
  void bind_arguments(const std::string& what, const std::vector<Parameter>& params,
                      bool uses_varargs, bool uses_kwargs, const CallArgs& args,
                      const EnvPtr& scope);
};

// Fails when a method that takes positional arguments only is given name=value ones.
inline void require_no_keywords(const CallArgs& args, const char* method) {
  if (!args.keywords.empty())
    throw TemplateError(std::string(method) + "() takes no keyword arguments");
}

// --- methods.cpp: what values offer ------------------------------------------------------
// obj.name / obj[key]: a dict's item (else its methods: get, items, keys, values,
// dictsort), a list's or string's element by index (negative from the end) or method
// (a string's upper, lower, strip, ... ; `length` of both), undefined when there is none.
Value member_of(const Value& object, const Value& property);
// A dict's method by name (get, items, keys, values, dictsort); undefined for others.
Value dict_method(const Value& dict, const std::string& name);
// obj[start:stop:step] of a list or a string (by code points).
Value slice_of(const Value& object, const Value& start, const Value& stop, const Value& step);
// A string's `replace(old, new, count)`, shared by the method and the filter.
Value string_replace(const std::string& s, const CallArgs& args);
// A dict's `dictsort(...)`, the method and the filter.
Value dict_sort(const Value& dict, const CallArgs& args);

// --- operators.cpp: operators, is-tests, sort order -------------------------------------
// `operand is name` (and selectattr's tests, which pass an argument).
bool run_test(const std::string& name, const Value& operand, const Value* argument);
// The binary operators other than and/or.
Value binary_op(const std::string& op, const Value& left, const Value& right);
// Sort order of two values (sort, dictsort): -1, 0, 1.
int compare_values(const Value& a, const Value& b, bool case_sensitive);

// --- globals.cpp: the names every template has -------------------------------------------
// true, false, none (and True, False, None), raise_exception, range, strftime_now.
void add_globals(Environment& env, const Clock& clock);
// strftime_now's format: %Y %m %d %b %B %H %M %%.
std::string format_time(const std::string& format, const std::tm& t);

// --- filters.cpp -----------------------------------------------------------------------
Value apply_filter(Evaluator& ev, const Value& operand, const FilterNode& filter,
                   const EnvPtr& env);

}  // namespace tinylm::jinja
