#include "util/json_read.h"

#include <cmath>
#include <limits>
#include <set>

#include "util/error.h"
#include "util/files.h"

namespace tinylm {

nlohmann::json parse_json(std::string_view text, const std::string& name) {
  // Keys seen in each open object, innermost last.
  std::vector<std::set<std::string>> open_objects;
  const nlohmann::json::parser_callback_t check_keys =
      [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (event == E::object_start) {
          open_objects.emplace_back();
        } else if (event == E::object_end) {
          if (!open_objects.empty()) open_objects.pop_back();
        } else if (event == E::key && !open_objects.empty()) {
          const std::string key = parsed.get<std::string>();
          if (!open_objects.back().insert(key).second)
            throw InputError(name + ": duplicate key \"" + key + "\" (at depth " +
                             std::to_string(depth) + ")");
        }
        return true;
      };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), check_keys);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name + ": not valid JSON (" + e.what() + ")");
  }
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json(read_file(path), path);
}

JsonField::JsonField(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

std::string JsonField::name() const {
  return path_.empty() ? file_ : file_ + ": " + path_;
}

std::string JsonField::child(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void JsonField::require_object() const {
  require(value_->is_object(), name() + " must be a JSON object");
}

void JsonField::require_array() const {
  require(value_->is_array(), name() + " must be a JSON array");
}

bool JsonField::has(const std::string& key) const {
  return value_->is_object() && value_->find(key) != value_->end();
}

JsonField JsonField::operator[](const std::string& key) const {
  require_object();
  const auto it = value_->find(key);
  require(it != value_->end(),
          (path_.empty() ? file_ + ": " : name() + ": ") + "missing field \"" + key + "\"");
  return JsonField(*it, file_, child(key));
}

JsonField JsonField::operator[](size_t i) const {
  require_array();
  require(i < value_->size(), name() + " has " + std::to_string(value_->size()) +
                                  " elements, element " + std::to_string(i) + " is missing");
  return JsonField((*value_)[i], file_, path_ + "[" + std::to_string(i) + "]");
}

size_t JsonField::size() const {
  require_array();
  return value_->size();
}

int64_t JsonField::integer(int64_t lo, int64_t hi) const {
  const bool in_int64 =
      value_->is_number_integer() && (!value_->is_number_unsigned() ||
                                      value_->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX));
  require(in_int64, name() + " must be an integer");
  const int64_t v = value_->get<int64_t>();
  require(v >= lo && v <= hi, name() + " must be in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], got " + std::to_string(v));
  return v;
}

double JsonField::number() const {
  require(value_->is_number(), name() + " must be a number");
  const double v = value_->get<double>();
  require(std::isfinite(v), name() + " must be a finite number");
  return v;
}

float JsonField::float_number() const {
  const double v = number();
  require(std::abs(v) <= std::numeric_limits<float>::max(),
          name() + " is too large for a 32-bit float");
  return static_cast<float>(v);
}

std::string JsonField::string() const {
  require(value_->is_string(), name() + " must be a string");
  return value_->get<std::string>();
}

bool JsonField::boolean() const {
  require(value_->is_boolean(), name() + " must be true or false");
  return value_->get<bool>();
}

std::vector<int64_t> JsonField::integers(int64_t lo, int64_t hi) const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i].integer(lo, hi));
  return out;
}

std::vector<std::string> JsonField::strings() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i].string());
  return out;
}

}  // namespace tinylm
