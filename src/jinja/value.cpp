#include "jinja/value.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "jinja/error.h"
#include "jinja/js_text.h"
#include "jinja/to_json.h"

namespace tinylm::jinja {

const Value* Dict::find(const std::string& key) const {
  for (const auto& [k, v] : items)
    if (k == key) return &v;
  return nullptr;
}

Value* Dict::find(const std::string& key) {
  for (auto& [k, v] : items)
    if (k == key) return &v;
  return nullptr;
}

void Dict::set(const std::string& key, Value value) {
  if (Value* slot = find(key)) {
    *slot = std::move(value);
  } else {
    items.emplace_back(key, std::move(value));
  }
}

const Value* CallArgs::keyword(const std::string& name) const {
  for (const auto& [k, v] : keywords)
    if (k == name) return &v;
  return nullptr;
}

Value Value::none() {
  Value v;
  v.kind_ = Kind::None;
  return v;
}
Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}
Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::Int;
  v.int_ = i;
  return v;
}
Value Value::number(double f) {
  Value v;
  v.kind_ = Kind::Float;
  v.float_ = f;
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.string_ = std::make_shared<const std::string>(std::move(s));
  return v;
}
namespace {

// 1 + the deepest item; TemplateError past kMaxValueDepth.
template <class Items, class Get>
int container_depth(const Items& items, Get get) {
  int deepest = 0;
  for (const auto& item : items) deepest = std::max(deepest, get(item).depth());
  if (deepest + 1 > kMaxValueDepth)
    throw TemplateError("lists and dicts nest deeper than " + std::to_string(kMaxValueDepth) +
                        " levels");
  return deepest + 1;
}

}  // namespace

Value Value::list(std::vector<Value> items, bool tuple) {
  Value v;
  v.depth_ = container_depth(items, [](const Value& x) -> const Value& { return x; });
  v.kind_ = Kind::List;
  v.tuple_ = tuple;
  v.list_ = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}
Value Value::dict(Dict d) {
  Value v;
  v.depth_ = container_depth(d.items, [](const auto& kv) -> const Value& { return kv.second; });
  v.kind_ = Kind::Dict;
  v.dict_ = std::make_shared<Dict>(std::move(d));
  return v;
}
Value Value::namespace_of(Dict d) {
  Value v = dict(std::move(d));
  v.kind_ = Kind::Namespace;
  return v;
}
Value Value::function(Function f) {
  Value v;
  v.kind_ = Kind::Function;
  v.function_ = std::make_shared<const Function>(std::move(f));
  return v;
}

double Value::as_number() const {
  return kind_ == Kind::Int ? double(int_) : float_;
}

bool Value::same_object(const Value& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::List:
      return list_ == other.list_;
    case Kind::Dict:
    case Kind::Namespace:
      return dict_ == other.dict_;
    case Kind::Function:
      return function_ == other.function_;
    default:
      return false;
  }
}

std::string kind_name(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined:
      return "undefined";
    case Kind::None:
      return "none";
    case Kind::Bool:
      return "boolean";
    case Kind::Int:
      return "integer";
    case Kind::Float:
      return "float";
    case Kind::String:
      return "string";
    case Kind::List:
      return v.is_tuple() ? "tuple" : "list";
    case Kind::Dict:
      return "dict";
    case Kind::Namespace:
      return "namespace";
    case Kind::Function:
      return "function";
  }
  return "?";
}

bool truthy(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined:
    case Kind::None:
      return false;
    case Kind::Bool:
      return v.as_bool();
    case Kind::Int:
      return v.as_int() != 0;
    case Kind::Float:
      return v.as_float() != 0 && !std::isnan(v.as_float());
    case Kind::String:
      return !v.as_string().empty();
    case Kind::List:
      return !v.as_list().empty();
    case Kind::Dict:
      return !v.as_dict().items.empty();
    case Kind::Namespace:
    case Kind::Function:
      return true;
  }
  return false;
}

namespace {

// Float's toString: a whole number keeps one decimal ("2.0"), as Python prints it.
std::string float_output(double x) {
  if (x == 0 && std::signbit(x)) return "-0.0";
  if (std::isfinite(x) && std::fmod(x, 1.0) == 0 && std::fabs(x) < 1e21) return js_number(x) + ".0";
  return js_number(x);
}

[[noreturn]] void cannot_print_function() {
  throw TemplateError("a function cannot be printed or joined as text");
}

// ToNumber of a string, for ==: whitespace trimmed, "" is 0, decimal or 0x/0o/0b.
double js_to_number(const std::string& s) {
  const std::string t = js_trim(s);
  if (t.empty()) return 0;
  if (t == "Infinity" || t == "+Infinity") return INFINITY;
  if (t == "-Infinity") return -INFINITY;
  if (t.size() > 2 && t[0] == '0' &&
      (t[1] == 'x' || t[1] == 'X' || t[1] == 'o' || t[1] == 'O' || t[1] == 'b' || t[1] == 'B')) {
    const int base = (t[1] == 'x' || t[1] == 'X') ? 16 : (t[1] == 'o' || t[1] == 'O') ? 8 : 2;
    char* end = nullptr;
    const double v = double(std::strtoull(t.c_str() + 2, &end, base));
    return *end == '\0' ? v : NAN;
  }
  // strtod reads hex, "inf" and "nan" too, which ToNumber reads differently or not at all.
  if (t.find_first_of("xXnNiIpP") != std::string::npos) return NAN;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  return *end == '\0' ? v : NAN;
}

bool is_object(const Value& v) {
  return v.is(Kind::List) || v.is(Kind::Dict) || v.is(Kind::Namespace) || v.is(Kind::Function);
}

}  // namespace

std::string to_output(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined:
      return "undefined";
    case Kind::None:
      return "null";
    case Kind::Bool:
      return v.as_bool() ? "true" : "false";
    case Kind::Int:
      return js_number(double(v.as_int()));
    case Kind::Float:
      return float_output(v.as_float());
    case Kind::String:
      return v.as_string();
    case Kind::List:
    case Kind::Dict:
    case Kind::Namespace:
      return to_json(v, JsonStyle{}, /*undefined_as_null=*/false);
    case Kind::Function:
      cannot_print_function();
  }
  return "";
}

std::string js_string(const Value& v) {
  switch (v.kind()) {
    case Kind::Float:
      return js_number(v.as_float());
    case Kind::List: {
      std::string out;
      for (size_t i = 0; i < v.as_list().size(); ++i) {
        if (i) out += ',';
        out += to_output(v.as_list()[i]);
      }
      return out;
    }
    case Kind::Dict:
    case Kind::Namespace:
      return "[object Map]";
    default:
      return to_output(v);
  }
}

bool strict_equals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return a.as_number() == b.as_number();
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::Undefined:
    case Kind::None:
      return true;
    case Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Kind::String:
      return a.as_string() == b.as_string();
    default:
      return a.same_object(b);
  }
}

bool loose_equals(const Value& a, const Value& b) {
  const bool a_nullish = a.is(Kind::Undefined) || a.is(Kind::None);
  const bool b_nullish = b.is(Kind::Undefined) || b.is(Kind::None);
  if (a_nullish || b_nullish) return a_nullish && b_nullish;
  if (is_object(a) && is_object(b)) return a.same_object(b);
  if (is_object(a)) return loose_equals(Value::string(js_string(a)), b);
  if (is_object(b)) return loose_equals(a, Value::string(js_string(b)));
  if (a.is(Kind::String) && b.is(Kind::String)) return a.as_string() == b.as_string();
  // Otherwise both become numbers: true is 1, a string its ToNumber.
  const auto number = [](const Value& v) {
    if (v.is(Kind::Bool)) return v.as_bool() ? 1.0 : 0.0;
    if (v.is(Kind::String)) return js_to_number(v.as_string());
    return v.as_number();
  };
  return number(a) == number(b);
}

}  // namespace tinylm::jinja
