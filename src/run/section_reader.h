// Reading one section of a JSON config ("train", "finetune", ...) into typed fields,
// rejecting unknown keys and wrong types with the field's dotted name
// ("train.lr must be a number", "unknown field finetune.lrr").
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "util/error.h"

namespace tinylm {

// The optimizer and the sampler work in float: a setting that overflows float, or
// underflows to 0 (or a denormal) though it is not 0, is bad input, not a run whose
// weights become infinite at step 1. InputError naming the setting.
inline void require_float_range(const std::string& name, double v) {
  require(std::abs(v) <= std::numeric_limits<float>::max() &&
              (v == 0 || std::abs(v) >= std::numeric_limits<float>::min()),
          name + " is out of the range of a 32-bit float");
}

class SectionReader {
 public:
  SectionReader(const nlohmann::json& j, std::string section)
      : j_(j), section_(std::move(section)) {
    require(j.is_object(), section_ + " must be a JSON object");
  }
  SectionReader& integer(const char* key, int64_t& out) {
    return field(key, [&](const nlohmann::json& v) {
      require(v.is_number_integer() &&
                  (!v.is_number_unsigned() || v.get<uint64_t>() <= uint64_t{INT64_MAX}),
              name(key) + " must be an integer (at most " + std::to_string(INT64_MAX) + ")");
      out = v.get<int64_t>();
    });
  }
  SectionReader& unsigned_integer(const char* key, uint64_t& out) {
    return field(key, [&](const nlohmann::json& v) {
      require(v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0),
              name(key) + " must be a non-negative integer");
      out = v.get<uint64_t>();
    });
  }
  SectionReader& number(const char* key, double& out) {
    return field(key, [&](const nlohmann::json& v) {
      require(v.is_number(), name(key) + " must be a number");
      out = v.get<double>();
      require(std::isfinite(out), name(key) + " must be a finite number");
    });
  }
  SectionReader& boolean(const char* key, bool& out) {
    return field(key, [&](const nlohmann::json& v) {
      require(v.is_boolean(), name(key) + " must be true or false");
      out = v.get<bool>();
    });
  }
  SectionReader& string(const char* key, std::string& out) {
    return field(key, [&](const nlohmann::json& v) {
      require(v.is_string(), name(key) + " must be a string");
      out = v.get<std::string>();
    });
  }
  // A list of strings: a JSON array of strings, or one string of comma-separated names
  // (what `--set lora.targets=c_attn,c_fc` gives).
  SectionReader& string_list(const char* key, std::vector<std::string>& out) {
    return field(key, [&](const nlohmann::json& v) {
      out.clear();
      if (v.is_string()) {
        const std::string text = v.get<std::string>();
        size_t start = 0;
        while (start <= text.size()) {
          const size_t comma = std::min(text.find(',', start), text.size());
          if (comma > start) out.push_back(text.substr(start, comma - start));
          start = comma + 1;
        }
        return;
      }
      require(v.is_array(),
              name(key) + " must be a list of strings (or one comma-separated string)");
      for (const auto& item : v) {
        require(item.is_string(), name(key) + " must be a list of strings");
        out.push_back(item.get<std::string>());
      }
    });
  }
  // Throws for any key no reader asked for.
  void done() const {
    for (const auto& [key, value] : j_.items())
      require(seen_.count(key) > 0, "unknown field " + name(key));
  }

 private:
  std::string name(const std::string& key) const { return section_ + "." + key; }
  SectionReader& field(const char* key, const std::function<void(const nlohmann::json&)>& read) {
    seen_[key] = true;
    if (j_.contains(key)) read(j_[key]);
    return *this;
  }
  const nlohmann::json& j_;
  std::string section_;
  std::map<std::string, bool> seen_;
};

// One field of a settings struct S in a field table: its JSON name and its member. A
// section's fields are listed once, and read, written and named from that list.
template <class S>
struct SettingField {
  const char* name;
  std::variant<double S::*, int64_t S::*, uint64_t S::*, bool S::*, std::string S::*,
               std::vector<std::string> S::*>
      member;
};

// Reads every field of the table into s (the ones the section has; the others keep s's).
template <class S, size_t N>
void read_fields(SectionReader& reader, S& s, const SettingField<S> (&fields)[N]) {
  for (const SettingField<S>& f : fields)
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(s.*member)>;
          if constexpr (std::is_same_v<T, double>) reader.number(f.name, s.*member);
          if constexpr (std::is_same_v<T, int64_t>) reader.integer(f.name, s.*member);
          if constexpr (std::is_same_v<T, uint64_t>) reader.unsigned_integer(f.name, s.*member);
          if constexpr (std::is_same_v<T, bool>) reader.boolean(f.name, s.*member);
          if constexpr (std::is_same_v<T, std::string>) reader.string(f.name, s.*member);
          if constexpr (std::is_same_v<T, std::vector<std::string>>)
            reader.string_list(f.name, s.*member);
        },
        f.member);
}

// Writes every field of the table from s into the JSON object out.
template <class S, size_t N>
void write_fields(const S& s, const SettingField<S> (&fields)[N], nlohmann::json& out) {
  for (const SettingField<S>& f : fields)
    std::visit([&](auto member) { out[f.name] = s.*member; }, f.member);
}

// A section read whole from one table over `s` (its defaults): unknown keys refused.
template <class S, size_t N>
S read_section(const nlohmann::json& j, const std::string& name, S s,
               const SettingField<S> (&fields)[N]) {
  SectionReader reader(j, name);
  read_fields(reader, s, fields);
  reader.done();
  return s;
}

// A section written whole from one table.
template <class S, size_t N>
nlohmann::json section_json(const S& s, const SettingField<S> (&fields)[N]) {
  nlohmann::json j = nlohmann::json::object();
  write_fields(s, fields, j);
  return j;
}

}  // namespace tinylm
