// What values offer templates: a string's and a dict's methods, indexing and slicing, as
// @huggingface/jinja has them, quirks included where they change a prompt: strip(),
// lstrip() and rstrip() take no characters (an argument is ignored and whitespace is
// stripped, as there); a dict's own keys come before its methods; obj.name of undefined,
// none or a number is undefined.
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

Value string_method(const std::string& s, Value (*fn)(const std::string&, const CallArgs&),
                    const char* name) {
  return Value::function([s, fn, name](const CallArgs& args, const EnvPtr&) {
    if (fn != string_replace) require_no_keywords(args, name);
    return fn(s, args);
  });
}

Value affix_test(const std::string& s, const CallArgs& args, bool prefix, const char* name) {
  if (args.positional.empty()) fail(std::string(name) + "() needs an argument");
  const auto matches = [&](const Value& v) {
    if (!v.is(Kind::String)) fail(std::string(name) + "() takes a string or a tuple of strings");
    const std::string& a = v.as_string();
    if (a.size() > s.size()) return false;
    return prefix ? s.compare(0, a.size(), a) == 0
                  : s.compare(s.size() - a.size(), a.size(), a) == 0;
  };
  const Value& pattern = args.positional[0];
  if (pattern.is(Kind::List))
    return Value::boolean(std::any_of(pattern.as_list().begin(), pattern.as_list().end(), matches));
  return Value::boolean(matches(pattern));
}

std::vector<std::string> split_on(const std::string& s, const std::string& sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = s.find(sep); at != std::string::npos; at = s.find(sep, start)) {
    parts.push_back(s.substr(start, at - start));
    start = at + sep.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

// str.split(sep=None, maxsplit=-1), as @huggingface/jinja writes Python's.
Value split(const std::string& s, const CallArgs& args) {
  const Value sep = args.positional.size() > 0 ? args.positional[0] : Value::none();
  const Value maxsplit = args.positional.size() > 1 ? args.positional[1] : Value::integer(-1);
  if (!sep.is(Kind::String) && !sep.is(Kind::None)) fail("split(): sep must be a string or none");
  if (!maxsplit.is(Kind::Int)) fail("split(): maxsplit must be an integer");
  const int64_t max = maxsplit.as_int();
  std::vector<std::string> parts;
  if (sep.is(Kind::None)) {
    const std::string text = js_trim_start(s);
    const std::vector<char32_t> cps = utf8_decode(text);
    const auto encode = [&](size_t from, size_t to) {
      std::string out;
      for (size_t k = from; k < to; ++k) utf8_append(out, cps[k]);
      return out;
    };
    for (size_t i = 0; i < cps.size();) {
      size_t j = i;
      while (j < cps.size() && !is_js_space(cps[j])) ++j;
      const std::string word = encode(i, j);
      if (max != -1 && static_cast<int64_t>(parts.size()) >= max) {
        parts.push_back(word + encode(j, cps.size()));
        break;
      }
      parts.push_back(word);
      while (j < cps.size() && is_js_space(cps[j])) ++j;
      i = j;
    }
  } else {
    if (sep.as_string().empty()) fail("split(): empty separator");
    parts = split_on(s, sep.as_string());
    const auto n = static_cast<int64_t>(parts.size());
    if (max != -1 && n > max) {  // JavaScript's splice(max): a negative max counts from the end
      const int64_t at = max < 0 ? std::max<int64_t>(n + max, 0) : max;
      std::string rest;
      for (int64_t i = at; i < n; ++i) rest += (i > at ? sep.as_string() : "") + parts[i];
      parts.resize(at);
      parts.push_back(rest);
    }
  }
  std::vector<Value> out;
  for (auto& p : parts) out.push_back(Value::string(std::move(p)));
  return Value::list(std::move(out));
}

Value string_builtin(const std::string& s, const std::string& name) {
  using Fn = Value (*)(const std::string&, const CallArgs&);
  static const std::pair<const char*, Fn> kMethods[] = {
      {"upper", [](const std::string& v, const CallArgs&) { return Value::string(js_upper(v)); }},
      {"lower", [](const std::string& v, const CallArgs&) { return Value::string(js_lower(v)); }},
      {"strip", [](const std::string& v, const CallArgs&) { return Value::string(js_trim(v)); }},
      {"lstrip",
       [](const std::string& v, const CallArgs&) { return Value::string(js_trim_start(v)); }},
      {"rstrip",
       [](const std::string& v, const CallArgs&) { return Value::string(js_trim_end(v)); }},
      {"title", [](const std::string& v, const CallArgs&) { return Value::string(js_title(v)); }},
      {"capitalize",
       [](const std::string& v, const CallArgs&) { return Value::string(js_capitalize(v)); }},
      {"startswith", [](const std::string& v,
                        const CallArgs& a) { return affix_test(v, a, true, "startswith"); }},
      {"endswith",
       [](const std::string& v, const CallArgs& a) { return affix_test(v, a, false, "endswith"); }},
      {"split", split},
      {"replace", string_replace},
  };
  if (name == "length") return Value::integer(js_length(s));
  for (const auto& [method, fn] : kMethods)
    if (name == method) return string_method(s, fn, method);
  return Value();
}

// A slice bound as Python (and @huggingface/jinja's slice()) clamps it.
std::vector<int64_t> slice_indices(int64_t n, const Value& start_v, const Value& stop_v,
                                   const Value& step_v) {
  for (const Value* v : {&start_v, &stop_v, &step_v})
    if (!v->is(Kind::Int) && !v->is(Kind::Undefined)) fail("slice bounds must be integers");
  const int64_t step = step_v.is(Kind::Int) ? step_v.as_int() : 1;
  if (step == 0) fail("slice step cannot be zero");
  int64_t start, stop;
  if (step > 0) {
    start = start_v.is(Kind::Int) ? start_v.as_int() : 0;
    stop = stop_v.is(Kind::Int) ? stop_v.as_int() : n;
    start = std::max(start, -n - 1), stop = std::max(stop, -n - 1);  // n + start stays in range
    start = start < 0 ? std::max<int64_t>(n + start, 0) : std::min(start, n);
    stop = stop < 0 ? std::max<int64_t>(n + stop, 0) : std::min(stop, n);
  } else {
    start = start_v.is(Kind::Int) ? start_v.as_int() : n - 1;
    stop = stop_v.is(Kind::Int) ? stop_v.as_int() : -1;
    start = std::max(start, -n - 2), stop = std::max(stop, -n - 2);  // n + start stays in range
    start = start < 0 ? std::max<int64_t>(n + start, -1) : std::min(start, n - 1);
    stop = stop < -1 ? std::max<int64_t>(n + stop, -1) : std::min(stop, n - 1);
  }
  std::vector<int64_t> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
    out.push_back(i);
    if (__builtin_add_overflow(i, step, &i)) break;  // a step past the end
  }
  return out;
}

}  // namespace

Value dict_method(const Value& dict, const std::string& name) {
  const auto method = [&](Value (*fn)(const Value&, const CallArgs&)) {
    return Value::function(
        [dict, fn](const CallArgs& args, const EnvPtr&) { return fn(dict, args); });
  };
  if (name == "get") {
    return method([](const Value& d, const CallArgs& args) {
      require_no_keywords(args, "get");
      if (args.positional.empty() || !args.positional[0].is(Kind::String))
        fail("get() needs a string key");
      if (const Value* v = d.as_dict().find(args.positional[0].as_string())) return *v;
      return args.positional.size() > 1 ? args.positional[1] : Value::none();
    });
  }
  if (name == "items" || name == "keys" || name == "values") {
    const int which = name == "items" ? 0 : name == "keys" ? 1 : 2;
    return Value::function([dict, which](const CallArgs&, const EnvPtr&) {
      std::vector<Value> out;
      for (const auto& [k, v] : dict.as_dict().items) {
        if (which == 0) out.push_back(Value::list({Value::string(k), v}));
        if (which == 1) out.push_back(Value::string(k));
        if (which == 2) out.push_back(v);
      }
      return Value::list(std::move(out));
    });
  }
  if (name == "dictsort") return method(dict_sort);
  return Value();
}

Value member_of(const Value& object, const Value& property) {
  if (object.is(Kind::Dict) || object.is(Kind::Namespace)) {
    if (!property.is(Kind::String))
      fail("a " + kind_name(object) + " is indexed by strings, not by a " + kind_name(property));
    if (const Value* v = object.as_dict().find(property.as_string())) return *v;
    return object.is(Kind::Dict) ? dict_method(object, property.as_string()) : Value();
  }
  if (object.is(Kind::List) || object.is(Kind::String)) {
    if (property.is(Kind::Int)) {
      if (object.is(Kind::String)) {
        std::string ch;
        return js_char_at(object.as_string(), property.as_int(), &ch) ? Value::string(ch) : Value();
      }
      const auto n = static_cast<int64_t>(object.as_list().size());
      const int64_t i = property.as_int() < 0 ? property.as_int() + n : property.as_int();
      return i >= 0 && i < n ? object.as_list()[i] : Value();
    }
    if (!property.is(Kind::String))
      fail("a " + kind_name(object) + " is indexed by integers, not by a " + kind_name(property));
    if (object.is(Kind::String)) return string_builtin(object.as_string(), property.as_string());
    if (property.as_string() == "length")
      return Value::integer(static_cast<int64_t>(object.as_list().size()));
    return Value();
  }
  if (!property.is(Kind::String))
    fail("cannot index a " + kind_name(object) + " with a " + kind_name(property));
  return Value();  // attributes of undefined, none, numbers: undefined, as in @huggingface/jinja
}

Value slice_of(const Value& object, const Value& start, const Value& stop, const Value& step) {
  if (object.is(Kind::List)) {
    const auto& items = object.as_list();
    std::vector<Value> out;
    for (int64_t i : slice_indices(static_cast<int64_t>(items.size()), start, stop, step))
      out.push_back(items[i]);
    return Value::list(std::move(out));
  }
  if (object.is(Kind::String)) {  // by code points (Array.from), not UTF-16 units
    const std::vector<char32_t> cps = utf8_decode(object.as_string());
    std::string out;
    for (int64_t i : slice_indices(static_cast<int64_t>(cps.size()), start, stop, step))
      utf8_append(out, cps[i]);
    return Value::string(out);
  }
  fail("cannot slice a " + kind_name(object));
}

Value string_replace(const std::string& s, const CallArgs& args) {
  if (args.positional.size() < 2) fail("replace() needs two arguments");
  const Value& from = args.positional[0];
  const Value& to = args.positional[1];
  if (!from.is(Kind::String) || !to.is(Kind::String)) fail("replace() takes strings");
  Value count = Value::none();
  if (args.positional.size() > 2) count = args.positional[2];
  if (const Value* c = args.keyword("count")) count = *c;
  if (!count.is(Kind::Int) && !count.is(Kind::None))
    fail("replace(): count must be an integer or none");
  int64_t left = count.is(Kind::Int) && count.as_int() >= 0 ? count.as_int() : INT64_MAX;
  const std::string& old = from.as_string();
  std::string out;
  if (old.empty()) {  // an insertion at every code point boundary, the ends included
    const std::vector<char32_t> cps = utf8_decode(s);
    for (size_t i = 0; i <= cps.size(); ++i) {
      if (left > 0) out += to.as_string(), --left;
      if (i < cps.size()) utf8_append(out, cps[i]);
    }
    return Value::string(out);
  }
  size_t start = 0;
  for (size_t at = s.find(old); at != std::string::npos && left > 0;
       at = s.find(old, start), --left) {
    out += s.substr(start, at - start) + to.as_string();
    start = at + old.size();
  }
  return Value::string(out + s.substr(start));
}

Value dict_sort(const Value& dict, const CallArgs& args) {
  const auto arg = [&](size_t i, const char* name, Value fallback) {
    if (i < args.positional.size()) return args.positional[i];
    if (const Value* v = args.keyword(name)) return *v;
    return fallback;
  };
  const Value case_sensitive = arg(0, "case_sensitive", Value::boolean(false));
  const Value by = arg(1, "by", Value::string("key"));
  const Value reverse = arg(2, "reverse", Value::boolean(false));
  if (!case_sensitive.is(Kind::Bool) || !reverse.is(Kind::Bool))
    fail("dictsort(): case_sensitive and reverse are booleans");
  if (!by.is(Kind::String) || (by.as_string() != "key" && by.as_string() != "value"))
    fail("dictsort(): by must be 'key' or 'value'");
  std::vector<Value> items;
  for (const auto& [k, v] : dict.as_dict().items)
    items.push_back(Value::list({Value::string(k), v}));
  const size_t index = by.as_string() == "key" ? 0 : 1;
  std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
    const int c = compare_values(a.as_list()[index], b.as_list()[index], case_sensitive.as_bool());
    return reverse.as_bool() ? c > 0 : c < 0;
  });
  return Value::list(std::move(items));
}

}  // namespace tinylm::jinja
