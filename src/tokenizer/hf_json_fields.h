// Reading the parts of a tokenizer.json file: checked access to one object's fields,
// each failure an InputError naming the file, the component and the cause
// ("tok.json: pre_tokenizer: \"behavior\" must be a string").
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/error.h"

namespace tinylm::hf_json {

// `where` is "<file>: <component>".
inline const nlohmann::json& field(const nlohmann::json& j, const char* key,
                                   const std::string& where) {
  require(j.is_object() && j.contains(key),
          [&] { return where + ": missing \"" + std::string(key) + "\""; });
  return j[key];
}

inline std::string string_field(const nlohmann::json& j, const char* key,
                                const std::string& where) {
  const nlohmann::json& v = field(j, key, where);
  require(v.is_string(), [&] { return where + ": \"" + std::string(key) + "\" must be a string"; });
  return v.get<std::string>();
}

// A boolean that may be absent or null (then fallback).
inline bool bool_field(const nlohmann::json& j, const char* key, bool fallback,
                       const std::string& where) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return fallback;
  require(j[key].is_boolean(),
          [&] { return where + ": \"" + std::string(key) + "\" must be true or false"; });
  return j[key].get<bool>();
}

// The "type" of a component object.
inline std::string type_of(const nlohmann::json& j, const std::string& where) {
  require(j.is_object(), where + ": expected an object");
  return string_field(j, "type", where);
}

// A {"String": s} or {"Regex": r} pattern: its text, and whether it is a regex.
inline std::pair<std::string, bool> pattern_field(const nlohmann::json& j,
                                                  const std::string& where) {
  const nlohmann::json& p = field(j, "pattern", where);
  require(p.is_object() && p.size() == 1 &&
              ((p.contains("String") && p["String"].is_string()) ||
               (p.contains("Regex") && p["Regex"].is_string())),
          where + ": \"pattern\" must be {\"String\": ...} or {\"Regex\": ...}");
  if (p.contains("String")) return {p["String"].get<std::string>(), false};
  return {p["Regex"].get<std::string>(), true};
}

// text with every occurrence of from (non-empty) replaced by to, left to right.
inline std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  size_t prev = 0;
  for (size_t at = text.find(from); !from.empty() && at != std::string_view::npos;
       at = text.find(from, prev)) {
    out.append(text.substr(prev, at - prev)).append(to);
    prev = at + from.size();
  }
  return out.append(text.substr(prev));
}

}  // namespace tinylm::hf_json
