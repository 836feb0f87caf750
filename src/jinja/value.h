// The values a template computes with, as @huggingface/jinja has them: undefined, none,
// booleans, integers and floats (apart, as Python keeps them), strings, lists (a tuple is
// a list that says so), dicts in insertion order (JavaScript's Map), namespaces and
// functions. Lists, dicts and namespaces are shared, as JavaScript objects are: `ns.x = 1`
// changes the namespace every name for it sees.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tinylm::jinja {

class Value;
class Environment;

// A dict: keys in the order they were first set.
struct Dict {
  std::vector<std::pair<std::string, Value>> items;
  const Value* find(const std::string& key) const;
  Value* find(const std::string& key);
  void set(const std::string& key, Value value);
};

// The arguments of a call: positional ones, then name=value ones in the order written.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
  const Value* keyword(const std::string& name) const;
};

using Function = std::function<Value(const CallArgs&, const std::shared_ptr<Environment>&)>;

enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Function };

// How deeply lists and dicts may nest (JSON from outside nests at most 512 levels): every
// walk over a value (printing, tojson, ==, freeing it) recurses, and stays shallow.
inline constexpr int kMaxValueDepth = 600;

class Value {
 public:
  Value() = default;  // undefined
  static Value none();
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value number(double f);  // a float
  static Value string(std::string s);
  static Value list(std::vector<Value> items, bool tuple = false);
  static Value dict(Dict d = {});
  static Value namespace_of(Dict d);
  static Value function(Function f);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_tuple() const { return kind_ == Kind::List && tuple_; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Float; }

  bool as_bool() const { return bool_; }
  int64_t as_int() const { return int_; }
  double as_float() const { return float_; }
  double as_number() const;  // an Int's or a Float's value
  const std::string& as_string() const { return *string_; }
  std::vector<Value>& as_list() const { return *list_; }
  Dict& as_dict() const { return *dict_; }  // a Dict's or a Namespace's entries
  const Function& as_function() const { return *function_; }

  // True when both name the same list, dict or namespace (JavaScript's object identity).
  bool same_object(const Value& other) const;
  // Levels of lists and dicts: 0 for a scalar, 1 + the deepest item for a container (as
  // built: a namespace's later attributes do not raise it; they hold no namespace).
  int depth() const { return depth_; }

 private:
  Kind kind_ = Kind::Undefined;
  bool tuple_ = false;
  int depth_ = 0;
  bool bool_ = false;
  int64_t int_ = 0;
  double float_ = 0;
  std::shared_ptr<const std::string> string_;
  std::shared_ptr<std::vector<Value>> list_;
  std::shared_ptr<Dict> dict_;
  std::shared_ptr<const Function> function_;
};

// The kind's name in error messages ("string", "list", "undefined" ...).
std::string kind_name(const Value& v);

// Truthiness (@huggingface/jinja's __bool__): empty strings, lists and dicts, zero, none
// and undefined are false; a namespace and a function are true.
bool truthy(const Value& v);

// What {{ v }} prints (RuntimeValue.toString): floats with a ".0" when whole, lists and
// dicts as JSON. Undefined and none print nothing (the caller skips them).
std::string to_output(const Value& v);

// JavaScript's String(v.value), what `+` and `~` join: floats without ".0", a list's
// items joined by ",", a dict "[object Map]".
std::string js_string(const Value& v);

// JavaScript's == and === on the values (== and != of templates; `in` on lists).
bool loose_equals(const Value& a, const Value& b);
bool strict_equals(const Value& a, const Value& b);

}  // namespace tinylm::jinja
