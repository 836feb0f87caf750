// The operators, the is-tests and the sort order, as @huggingface/jinja has them: == is
// JavaScript's ==; + joins when either side is a string; ~ and + refuse undefined and
// none; integers stay integers except under /; numbers compare with numbers only.
#include <algorithm>
#include <climits>
#include <cmath>
#include <ctime>

#include "jinja/error.h"
#include "jinja/evaluator.h"
#include "jinja/js_text.h"
#include "util/utf8.h"

namespace tinylm::jinja {
namespace {

bool numeric_like(const Value& v) {
  return v.is_number() || v.is(Kind::Bool);
}
double numeric_value(const Value& v) {
  return v.is(Kind::Bool) ? (v.as_bool() ? 1 : 0) : v.as_number();
}

Value arithmetic(const std::string& op, const Value& l, const Value& r) {
  const bool floats = l.is(Kind::Float) || r.is(Kind::Float);
  const double a = l.as_number(), b = r.as_number();
  if (op == "<") return Value::boolean(a < b);
  if (op == ">") return Value::boolean(a > b);
  if (op == "<=") return Value::boolean(a <= b);
  if (op == ">=") return Value::boolean(a >= b);
  if (op == "/") return Value::number(a / b);
  if (!floats && (op == "//" || op == "%") && b == 0) fail("integer division or modulo by zero");
  double res;
  if (op == "+")
    res = a + b;
  else if (op == "-")
    res = a - b;
  else if (op == "*")
    res = a * b;
  else if (op == "//")
    res = std::floor(a / b);
  else if (op == "%")
    res = std::fmod(a, b);  // JavaScript's %: the sign of the dividend
  else
    return Value();
  if (floats) return Value::number(res);
  if (std::fabs(res) >= 9.2e18) fail("integer result too large");
  return Value::integer(static_cast<int64_t>(res));
}

}  // namespace

bool run_test(const std::string& name, const Value& v, const Value* arg) {
  if (name == "boolean") return v.is(Kind::Bool);
  if (name == "callable") return v.is(Kind::Function);
  if (name == "odd" || name == "even") {
    if (!v.is(Kind::Int)) fail("the test '" + name + "' needs an integer, not a " + kind_name(v));
    return (v.as_int() % 2 != 0) == (name == "odd");
  }
  if (name == "false") return v.is(Kind::Bool) && !v.as_bool();
  if (name == "true") return v.is(Kind::Bool) && v.as_bool();
  if (name == "none") return v.is(Kind::None);
  if (name == "string") return v.is(Kind::String);
  if (name == "number") return v.is_number();
  if (name == "integer") return v.is(Kind::Int);
  if (name == "iterable") return (v.is(Kind::List) && !v.is_tuple()) || v.is(Kind::String);
  if (name == "mapping") return v.is(Kind::Dict);
  if (name == "sequence") return v.is(Kind::List) || v.is(Kind::Dict) || v.is(Kind::String);
  if (name == "lower") return v.is(Kind::String) && v.as_string() == js_lower(v.as_string());
  if (name == "upper") return v.is(Kind::String) && v.as_string() == js_upper(v.as_string());
  if (name == "defined") return !v.is(Kind::Undefined);
  if (name == "undefined") return v.is(Kind::Undefined);
  if (name == "equalto" || name == "eq") {
    if (!arg) fail("the test '" + name + "' needs a value to compare with");
    return strict_equals(v, *arg);
  }
  fail("unknown test '" + name + "'");
}

Value binary_op(const std::string& op, const Value& left, const Value& right) {
  if (op == "==") return Value::boolean(loose_equals(left, right));
  if (op == "!=") return Value::boolean(!loose_equals(left, right));
  const bool membership = op == "in" || op == "not in";
  if (left.is(Kind::Undefined) || right.is(Kind::Undefined)) {
    if (right.is(Kind::Undefined) && membership) return Value::boolean(op == "not in");
    fail("cannot apply '" + op + "' to an undefined value");
  }
  if (left.is(Kind::None) || right.is(Kind::None)) fail("cannot apply '" + op + "' to none");
  if (op == "~") return Value::string(js_string(left) + js_string(right));
  if (op == "**" && numeric_like(left) && numeric_like(right)) {
    const double a = numeric_value(left), b = numeric_value(right);
    if (a == 0 && b < 0) fail("0.0 cannot be raised to a negative power");
    const double r = std::pow(a, b);
    if (!std::isfinite(r)) fail("the power is not a finite real number");
    if (left.is(Kind::Float) || right.is(Kind::Float) || b < 0) return Value::number(r);
    if (std::fabs(r) >= 9.2e18) fail("integer result too large");
    return Value::integer(static_cast<int64_t>(r));
  }
  if (left.is_number() && right.is_number()) {
    Value v = arithmetic(op, left, right);
    if (!v.is(Kind::Undefined)) return v;
  } else if (left.is(Kind::List) && right.is(Kind::List)) {
    if (op == "+") {
      std::vector<Value> items = left.as_list();
      items.insert(items.end(), right.as_list().begin(), right.as_list().end());
      return Value::list(std::move(items));
    }
  } else if (right.is(Kind::List) && membership) {
    const bool found = std::any_of(right.as_list().begin(), right.as_list().end(),
                                   [&](const Value& x) { return strict_equals(x, left); });
    return Value::boolean(found == (op == "in"));
  }
  if ((left.is(Kind::String) || right.is(Kind::String)) && op == "+")
    return Value::string(js_string(left) + js_string(right));
  if (left.is(Kind::String) && right.is(Kind::String) && membership) {
    const bool found = right.as_string().find(left.as_string()) != std::string::npos;
    return Value::boolean(found == (op == "in"));
  }
  if (left.is(Kind::String) && right.is(Kind::Dict) && membership) {
    const bool found = right.as_dict().find(left.as_string()) != nullptr;
    return Value::boolean(found == (op == "in"));
  }
  fail("unsupported operator '" + op + "' between a " + kind_name(left) + " and a " +
       kind_name(right));
}

// Sort order of two values (sort, dictsort): numbers and booleans by value, strings
// case-insensitively unless asked; other mixes are an error.
int compare_values(const Value& a, const Value& b, bool case_sensitive) {
  if (a.is(Kind::None) && b.is(Kind::None)) return 0;
  if (a.is(Kind::Undefined) && b.is(Kind::Undefined)) return 0;
  if (numeric_like(a) && numeric_like(b)) {
    const double x = numeric_value(a), y = numeric_value(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (!a.is(Kind::String) || !b.is(Kind::String))
    fail("cannot compare a " + kind_name(a) + " with a " + kind_name(b));
  std::string x = a.as_string(), y = b.as_string();
  if (!case_sensitive) x = js_lower(x), y = js_lower(y);
  // JavaScript compares UTF-16 units; for text without astral characters that is the
  // code point order, which UTF-8 bytes keep.
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace tinylm::jinja
