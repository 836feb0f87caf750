#include "jinja/template.h"

#include <climits>
#include <cmath>
#include <set>

#include "jinja/error.h"
#include "jinja/evaluator.h"
#include "jinja/lexer.h"
#include "jinja/parser.h"

namespace tinylm::jinja {
namespace {

// An array index as JavaScript orders object keys: "0", "1", ... "4294967294".
bool is_array_index(const std::string& key) {
  if (key.empty() || key.size() > 10 || (key.size() > 1 && key[0] == '0')) return false;
  for (char c : key)
    if (c < '0' || c > '9') return false;
  return std::stoull(key) < 4294967295ULL;
}

Value from_json(const nlohmann::ordered_json& j, int depth = 0) {
  if (depth > kMaxValueDepth)
    throw TemplateError("a template variable nests deeper than " + std::to_string(kMaxValueDepth) +
                        " levels");
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null:
      return Value::none();
    case nlohmann::ordered_json::value_t::boolean:
      return Value::boolean(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return Value::integer(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: {
      const uint64_t u = j.get<uint64_t>();
      if (u > uint64_t(INT64_MAX)) return Value::number(double(u));
      return Value::integer(static_cast<int64_t>(u));
    }
    case nlohmann::ordered_json::value_t::number_float: {
      // JSON.parse gives one number type; a whole one is an integer to the template.
      const double d = j.get<double>();
      if (std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 9.2e18)
        return Value::integer(static_cast<int64_t>(d));
      return Value::number(d);
    }
    case nlohmann::ordered_json::value_t::string:
      return Value::string(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      std::vector<Value> items;
      for (const auto& item : j) items.push_back(from_json(item, depth + 1));
      return Value::list(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      // JavaScript lists an object's integer-like keys first, in numeric order.
      Dict d;
      std::vector<std::pair<uint64_t, std::string>> indices;
      for (const auto& [k, v] : j.items())
        if (is_array_index(k)) indices.emplace_back(std::stoull(k), k);
      std::sort(indices.begin(), indices.end());
      for (const auto& [n, k] : indices) d.set(k, from_json(j.at(k), depth + 1));
      for (const auto& [k, v] : j.items())
        if (!is_array_index(k)) d.set(k, from_json(v, depth + 1));
      return Value::dict(std::move(d));
    }
    default:
      throw TemplateError("a template variable cannot hold binary data");
  }
}

std::tm local_now() {
  const std::time_t now = std::time(nullptr);
  std::tm t{};
  localtime_r(&now, &t);
  return t;
}

}  // namespace

namespace {
std::shared_ptr<const Body> load(std::string_view source, const std::string& name) {
  try {
    return std::make_shared<const Body>(parse(tokenize(source)));
  } catch (const TemplateError& e) {
    throw TemplateError(name + ": " + e.what());
  }
}
}  // namespace

Template::Template(std::string_view source, std::string name)
    : name_(std::move(name)), program_(load(source, name_)) {}

std::string Template::render(const nlohmann::ordered_json& variables,
                             const RenderOptions& options) const {
  if (!variables.is_object()) throw TemplateError(name_ + ": the variables must be a JSON object");
  auto env = std::make_shared<Environment>();
  add_globals(*env, options.clock ? options.clock : Clock(local_now));
  for (const auto& [name, value] : variables.items()) {
    // @huggingface/jinja refuses to redeclare its globals.
    if (env->has_own(name) || name == "namespace")
      throw TemplateError(name_ + ": a variable cannot be named '" + name + "' (a built-in name)");
    env->set(name, from_json(value));
  }
  Evaluator ev(options.max_steps, options.max_bytes);
  try {
    return ev.render(*program_, env);
  } catch (const RaisedException&) {
    throw;
  } catch (const TemplateError& e) {
    throw TemplateError(name_ + ": " + e.what());
  }
}

}  // namespace tinylm::jinja
