// The names every template has: true, false, none (and True, False, None),
// raise_exception, range, strftime_now.
#include <algorithm>
#include <climits>
#include <cmath>
#include <ctime>

#include "jinja/error.h"
#include "jinja/evaluator.h"
#include "jinja/js_text.h"
#include "util/utf8.h"

namespace tinylm::jinja {

void add_globals(Environment& env, const Clock& clock) {
  for (const char* name : {"true", "True"}) env.set(name, Value::boolean(true));
  for (const char* name : {"false", "False"}) env.set(name, Value::boolean(false));
  for (const char* name : {"none", "None"}) env.set(name, Value::none());
  env.set("raise_exception", Value::function([](const CallArgs& args, const EnvPtr&) -> Value {
            throw RaisedException(args.positional.empty() ? "" : js_string(args.positional[0]));
          }));
  env.set("range", Value::function([](const CallArgs& args, const EnvPtr&) {
            require_no_keywords(args, "range");
            for (const Value& a : args.positional)
              if (!a.is(Kind::Int)) fail("range() takes integers");
            const auto& p = args.positional;
            if (p.empty() || p.size() > 3) fail("range() takes 1 to 3 integers");
            const int64_t start = p.size() == 1 ? 0 : p[0].as_int();
            const int64_t stop = p.size() == 1 ? p[0].as_int() : p[1].as_int();
            const int64_t step = p.size() == 3 ? p[2].as_int() : 1;
            if (step == 0) fail("range() step must not be zero");
            std::vector<Value> out;
            for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
              if (out.size() >= 10'000'000)
                fail("range() of more than 10,000,000 numbers");  // 160 MB
              out.push_back(Value::integer(i));
              if (__builtin_add_overflow(i, step, &i)) break;
            }
            return Value::list(std::move(out));
          }));
  env.set("strftime_now", Value::function([clock](const CallArgs& args, const EnvPtr&) {
            if (args.positional.empty() || !args.positional[0].is(Kind::String))
              fail("strftime_now() needs a format string");
            return Value::string(format_time(args.positional[0].as_string(), clock()));
          }));
}

// %Y %m %d %b %B %H %M %% as @huggingface/jinja's strftime (English month names, its
// default locale here); any other directive is left as written.
std::string format_time(const std::string& format, const std::tm& t) {
  static const char* kMonths[] = {"January",   "February", "March",    "April",
                                  "May",       "June",     "July",     "August",
                                  "September", "October",  "November", "December"};
  const auto pad2 = [](int n) { return (n < 10 ? "0" : "") + std::to_string(n); };
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      out += format[i];
      continue;
    }
    const char d = format[++i];
    switch (d) {
      case 'Y':
        out += std::to_string(t.tm_year + 1900);
        break;
      case 'm':
        out += pad2(t.tm_mon + 1);
        break;
      case 'd':
        out += pad2(t.tm_mday);
        break;
      case 'b':
        out += std::string(kMonths[t.tm_mon]).substr(0, 3);
        break;
      case 'B':
        out += kMonths[t.tm_mon];
        break;
      case 'H':
        out += pad2(t.tm_hour);
        break;
      case 'M':
        out += pad2(t.tm_min);
        break;
      case '%':
        out += '%';
        break;
      default:
        out += '%', out += d;
    }
  }
  return out;
}

}  // namespace tinylm::jinja
