// The filters, dispatched as @huggingface/jinja dispatches them: on the filter's form
// (`x | f` or `x | f(...)`) and then on the operand's kind. A filter that does not apply
// to the operand is an error, never a guess (so `undefined | length` fails, as there).
// select and reject are tinylm's, as Python's Jinja has them (Llama 3.1's template names
// reject for builtin tools; @huggingface/jinja lacks both).
#include <algorithm>
#include <cmath>

#include "jinja/error.h"
#include "jinja/evaluator.h"
#include "jinja/js_text.h"
#include "jinja/parser.h"
#include "jinja/to_json.h"
#include "util/utf8.h"

namespace tinylm::jinja {
namespace {

[[noreturn]] void not_for(const std::string& filter, const Value& operand) {
  fail("the filter '" + filter + "' does not apply to a " + kind_name(operand));
}

// The i-th positional argument, else the keyword, else the fallback.
Value arg(const CallArgs& args, size_t i, const char* keyword, Value fallback) {
  if (i < args.positional.size()) return args.positional[i];
  if (keyword)
    if (const Value* v = args.keyword(keyword)) return *v;
  return fallback;
}

// "a.b.0": dict keys and list indices, undefined where the path leads nowhere.
Value attribute_path(const Value& item, const std::string& path) {
  Value v = item;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (v.is(Kind::Dict) || v.is(Kind::Namespace)) {
      const Value* found = v.as_dict().find(part);
      v = found ? *found : Value();
    } else if (v.is(Kind::List)) {
      double index;
      if (!js_parse_int(part, &index) || index < 0 || index >= double(v.as_list().size()))
        return Value();
      v = v.as_list()[static_cast<size_t>(index)];
    } else {
      return Value();
    }
    if (dot == std::string::npos) return v;
    start = dot + 1;
  }
}

// Array.prototype.join of the raw values: none and undefined are empty.
std::string join_values(const std::vector<Value>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    if (!items[i].is(Kind::None) && !items[i].is(Kind::Undefined)) out += js_string(items[i]);
  }
  return out;
}

// unique: by value for strings, numbers and booleans (1 and 1.0 are one), by identity
// for lists and dicts.
Value unique(const std::vector<Value>& items) {
  std::vector<Value> out;
  for (const Value& v : items) {
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const Value& o) { return strict_equals(o, v); });
    if (!seen) out.push_back(v);
  }
  return Value::list(std::move(out));
}

Value sorted(const std::vector<Value>& items, bool reverse, bool case_sensitive,
             const Value& attribute) {
  std::vector<Value> out = items;
  const auto key = [&](const Value& v) {
    if (attribute.is(Kind::None)) return v;
    const std::string path =
        attribute.is(Kind::Int) ? js_number(double(attribute.as_int())) : attribute.as_string();
    return attribute_path(v, path);
  };
  std::stable_sort(out.begin(), out.end(), [&](const Value& a, const Value& b) {
    const int c = compare_values(key(a), key(b), case_sensitive);
    return reverse ? c > 0 : c < 0;
  });
  return Value::list(std::move(out));
}

std::string indent_lines(const std::string& s, int64_t width, bool first, bool blank) {
  const std::string pad(static_cast<size_t>(std::max<int64_t>(width, 0)), ' ');
  std::string out;
  size_t start = 0, line = 0;
  while (true) {
    const size_t nl = s.find('\n', start);
    const std::string part =
        s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    const bool skip = (!first && line == 0) || (!blank && part.empty());
    out += (skip ? "" : pad) + part;
    if (nl == std::string::npos) return out;
    out += '\n';
    start = nl + 1;
    ++line;
  }
}

// A whole number as an integer value; past int64's range it is an error, not a wrapped
// number (JavaScript would keep a double).
Value whole(double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 9.2e18)
    fail("integer " + js_number(v) + " out of range");
  return Value::integer(static_cast<int64_t>(v));
}

Value list_filter(const std::string& name, const std::vector<Value>& items, const Value& operand) {
  if (name == "list") return operand;
  // @huggingface/jinja fails on the first or last of an empty list too (it returns no value).
  if ((name == "first" || name == "last") && items.empty()) fail(name + " of an empty list");
  if (name == "first") return items.front();
  if (name == "last") return items.back();
  if (name == "length") return Value::integer(static_cast<int64_t>(items.size()));
  if (name == "reverse") return Value::list({items.rbegin(), items.rend()});
  if (name == "sort") return sorted(items, false, false, Value::none());
  if (name == "join") return Value::string(join_values(items, ""));
  if (name == "string") return Value::string(to_json(operand, JsonStyle{}, false));
  if (name == "unique") return unique(items);
  if (name == "select" || name == "reject") {
    std::vector<Value> out;
    for (const Value& v : items)
      if (truthy(v) == (name == "select")) out.push_back(v);
    return Value::list(std::move(out));
  }
  not_for(name, operand);
}

Value string_filter(const std::string& name, const std::string& s, const Value& operand) {
  if (name == "length") return Value::integer(js_length(s));
  if (name == "upper") return Value::string(js_upper(s));
  if (name == "lower") return Value::string(js_lower(s));
  if (name == "title") return Value::string(js_title(s));
  if (name == "capitalize") return Value::string(js_capitalize(s));
  if (name == "trim") return Value::string(js_trim(s));
  if (name == "indent") return Value::string(indent_lines(s, 4, false, false));
  if (name == "join" || name == "string") return operand;
  if (name == "int") {
    double v;
    return js_parse_int(s, &v) ? whole(v) : Value::integer(0);
  }
  if (name == "float") {
    double v;
    return Value::number(js_parse_float(s, &v) ? v : 0.0);
  }
  not_for(name, operand);
}

Value number_filter(const std::string& name, const Value& operand) {
  if (name == "abs")
    return operand.is(Kind::Int) ? Value::integer(std::llabs(operand.as_int()))
                                 : Value::number(std::fabs(operand.as_float()));
  if (name == "int") return whole(std::floor(operand.as_number()));
  if (name == "float") return Value::number(operand.as_number());
  if (name == "string") return Value::string(to_output(operand));
  not_for(name, operand);
}

// A dict's filters are its methods (get, items, keys, values, dictsort), never its keys.
Value dict_filter(const std::string& name, const Value& operand, const CallArgs& args) {
  if (name == "length" && args.positional.empty() && args.keywords.empty())
    return Value::integer(static_cast<int64_t>(operand.as_dict().items.size()));
  const Value method = dict_method(operand, name);
  if (!method.is(Kind::Function)) not_for(name, operand);
  return method.as_function()(args, nullptr);
}

Value bool_filter(const std::string& name, const Value& operand) {
  const bool b = operand.as_bool();
  if (name == "bool") return operand;
  if (name == "int") return Value::integer(b ? 1 : 0);
  if (name == "float") return Value::number(b ? 1.0 : 0.0);
  if (name == "string") return Value::string(b ? "true" : "false");
  not_for(name, operand);
}

// `x | name` with no parentheses.
Value plain_filter(const std::string& name, const Value& operand) {
  if (name == "safe") return operand;
  if (name == "tojson") return Value::string(to_json(operand, JsonStyle{}));
  if (name == "items" && operand.is(Kind::Dict)) {
    std::vector<Value> out;
    for (const auto& [k, v] : operand.as_dict().items)
      out.push_back(Value::list({Value::string(k), v}));
    return Value::list(std::move(out));
  }
  switch (operand.kind()) {
    case Kind::List:
      return list_filter(name, operand.as_list(), operand);
    case Kind::String:
      return string_filter(name, operand.as_string(), operand);
    case Kind::Int:
    case Kind::Float:
      return number_filter(name, operand);
    case Kind::Dict:
      return dict_filter(name, operand, {});
    case Kind::Bool:
      return bool_filter(name, operand);
    default:
      not_for(name, operand);
  }
}

Value tojson_filter(const Value& operand, const CallArgs& args) {
  JsonStyle style;
  const Value indent = arg(args, SIZE_MAX, "indent", Value::none());
  if (indent.is(Kind::Int)) {
    style.indent = static_cast<int>(indent.as_int());
  } else if (!indent.is(Kind::None)) {
    fail("tojson(): indent must be an integer");
  }
  const Value ascii = arg(args, SIZE_MAX, "ensure_ascii", Value::boolean(false));
  const Value sort_keys = arg(args, SIZE_MAX, "sort_keys", Value::boolean(false));
  if (!ascii.is(Kind::Bool) || !sort_keys.is(Kind::Bool))
    fail("tojson(): ensure_ascii and sort_keys are booleans");
  // @huggingface/jinja sorts keys with localeCompare (the ICU collation), which tinylm
  // does not reproduce: refused rather than rendered in another order.
  if (sort_keys.as_bool()) fail("tojson(sort_keys=true) is not supported");
  style.ensure_ascii = ascii.as_bool();
  const Value seps = arg(args, SIZE_MAX, "separators", Value::none());
  if (seps.is(Kind::List)) {
    const auto& s = seps.as_list();
    if (s.size() != 2 || !s[0].is(Kind::String) || !s[1].is(Kind::String))
      fail("tojson(): separators must be two strings");
    style.separators = std::make_pair(s[0].as_string(), s[1].as_string());
  } else if (!seps.is(Kind::None)) {
    fail("tojson(): separators must be two strings");
  }
  return Value::string(to_json(operand, style));
}

Value attr_filter(const std::string& name, const FilterNode& node, const Value& operand,
                  Evaluator& ev, const EnvPtr& env) {
  for (const Value& item : operand.as_list())
    if (!item.is(Kind::Dict) && !item.is(Kind::Namespace))
      fail(name + " applies to a list of dicts");
  for (const NodePtr& a : node.args)
    if (a->kind != NodeKind::StringLiteral) fail("the arguments of " + name + " must be strings");
  std::vector<Value> given;
  for (const NodePtr& a : node.args) given.push_back(ev.eval(*a, env));
  if (given.empty()) fail(name + " needs an attribute name");
  const std::string attr = given[0].as_string();
  const std::string test = given.size() > 1 ? given[1].as_string() : "";
  if (!test.empty() && !is_known_test(test)) fail("unknown test '" + test + "'");
  const Value* test_arg = given.size() > 2 ? &given[2] : nullptr;
  std::vector<Value> out;
  for (const Value& item : operand.as_list()) {
    const Value* a = item.as_dict().find(attr);
    const bool hit = a && (test.empty() ? truthy(*a) : run_test(test, *a, test_arg));
    if (hit == (name == "selectattr")) out.push_back(item);
  }
  return Value::list(std::move(out));
}

Value map_filter(const Value& operand, const CallArgs& args) {
  const Value* attr = args.keyword("attribute");
  if (!attr) fail("map() needs attribute=...; other forms of map are not supported");
  if (!attr->is(Kind::String)) fail("map(): attribute must be a string");
  const Value* fallback = args.keyword("default");
  std::vector<Value> out;
  for (const Value& item : operand.as_list()) {
    if (!item.is(Kind::Dict) && !item.is(Kind::Namespace)) fail("map() applies to a list of dicts");
    const Value v = attribute_path(item, attr->as_string());
    out.push_back(v.is(Kind::Undefined) && fallback ? *fallback : v);
  }
  return Value::list(std::move(out));
}

// select / reject with a test: Python Jinja's, e.g. reject('equalto', 'code_interpreter').
Value select_filter(const std::string& name, const Value& operand, const CallArgs& args) {
  if (args.positional.empty()) return list_filter(name, operand.as_list(), operand);
  const Value& test = args.positional[0];
  if (!test.is(Kind::String) || !is_known_test(test.as_string())) fail(name + "(): unknown test");
  const Value* test_arg = args.positional.size() > 1 ? &args.positional[1] : nullptr;
  std::vector<Value> out;
  for (const Value& v : operand.as_list())
    if (run_test(test.as_string(), v, test_arg) == (name == "select")) out.push_back(v);
  return Value::list(std::move(out));
}

Value called_list_filter(const std::string& name, const Value& operand, const FilterNode& node,
                         const CallArgs& args, Evaluator& ev, const EnvPtr& env) {
  if (name == "sort") {
    const Value reverse = arg(args, 0, "reverse", Value::boolean(false));
    const Value case_sensitive = arg(args, 1, "case_sensitive", Value::boolean(false));
    const Value attribute = arg(args, 2, "attribute", Value::none());
    if (!reverse.is(Kind::Bool) || !case_sensitive.is(Kind::Bool))
      fail("sort(): reverse and case_sensitive are booleans");
    if (!attribute.is(Kind::String) && !attribute.is(Kind::Int) && !attribute.is(Kind::None))
      fail("sort(): attribute must be a string, an integer or none");
    return sorted(operand.as_list(), reverse.as_bool(), case_sensitive.as_bool(), attribute);
  }
  if (name == "selectattr" || name == "rejectattr")
    return attr_filter(name, node, operand, ev, env);
  if (name == "map") return map_filter(operand, args);
  if (name == "select" || name == "reject") return select_filter(name, operand, args);
  not_for(name + "(...)", operand);
}

// `x | name(...)`.
Value called_filter(const std::string& name, const Value& operand, const FilterNode& node,
                    Evaluator& ev, const EnvPtr& env) {
  const CallArgs args = ev.eval_args(node.args, env);
  if (name == "tojson") return tojson_filter(operand, args);
  if (name == "join") {
    const Value sep = arg(args, 0, "separator", Value::string(""));
    if (!sep.is(Kind::String)) fail("join(): the separator must be a string");
    if (operand.is(Kind::List))
      return Value::string(join_values(operand.as_list(), sep.as_string()));
    if (!operand.is(Kind::String)) not_for("join", operand);
    std::string out;
    bool first = true;
    for (char32_t cp : utf8_decode(operand.as_string())) {
      if (!first) out += sep.as_string();
      utf8_append(out, cp);
      first = false;
    }
    return Value::string(out);
  }
  if (name == "int" || name == "float") {
    const Value fallback =
        arg(args, 0, "default", name == "int" ? Value::integer(0) : Value::number(0.0));
    if (operand.is(Kind::String)) {
      double v;
      const bool ok = name == "int" ? js_parse_int(operand.as_string(), &v)
                                    : js_parse_float(operand.as_string(), &v);
      if (!ok) return fallback;
      return name == "int" ? whole(v) : Value::number(v);
    }
    if (operand.is_number()) return operand;
    if (operand.is(Kind::Bool))
      return name == "int" ? Value::integer(operand.as_bool()) : Value::number(operand.as_bool());
    not_for(name, operand);
  }
  if (name == "default") {
    const Value fallback = arg(args, 0, nullptr, Value::string(""));
    const Value boolean = arg(args, 1, "boolean", Value::boolean(false));
    if (!boolean.is(Kind::Bool)) fail("default(): the second argument is a boolean");
    const bool use_fallback =
        operand.is(Kind::Undefined) || (boolean.as_bool() && !truthy(operand));
    return use_fallback ? fallback : operand;
  }
  if (operand.is(Kind::List)) return called_list_filter(name, operand, node, args, ev, env);
  if (operand.is(Kind::String)) {
    if (name == "indent") {
      const Value width = arg(args, 0, "width", Value::integer(4));
      if (!width.is(Kind::Int)) fail("indent(): width must be an integer");
      return Value::string(indent_lines(operand.as_string(), width.as_int(),
                                        truthy(arg(args, 1, "first", Value::boolean(false))),
                                        truthy(arg(args, 2, "blank", Value::boolean(false)))));
    }
    if (name == "replace") return string_replace(operand.as_string(), args);
    not_for(name + "(...)", operand);
  }
  if (operand.is(Kind::Dict)) return dict_filter(name, operand, args);
  not_for(name + "(...)", operand);
}

}  // namespace

Value apply_filter(Evaluator& ev, const Value& operand, const FilterNode& filter,
                   const EnvPtr& env) {
  return filter.called ? called_filter(filter.name, operand, filter, ev, env)
                       : plain_filter(filter.name, operand);
}

}  // namespace tinylm::jinja
