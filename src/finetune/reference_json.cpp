// Typed, checked access to a fixture's reference.json; see reference_json.h.
#include "finetune/reference_json.h"

#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

const char* type_name(nlohmann::json::value_t type) {
  switch (type) {
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "true or false";
    case nlohmann::json::value_t::number_integer:
      return "an integer";
    case nlohmann::json::value_t::number_float:
      return "a number";
    default:
      return "a value";
  }
}

bool has_type(const nlohmann::json& v, nlohmann::json::value_t type) {
  switch (type) {
    case nlohmann::json::value_t::number_integer:
      return v.is_number_integer();
    case nlohmann::json::value_t::number_float:
      return v.is_number();
    default:
      return v.type() == type;
  }
}

}  // namespace

std::string ReferenceJson::task() const {
  if (!json.contains("task")) return "";
  return reference_field(*this, json, "task", "task", nlohmann::json::value_t::string)
      .get<std::string>();
}

ReferenceJson read_reference_json(const std::string& dir) {
  ReferenceJson ref;
  ref.path = dir + "/reference.json";
  ref.json = read_json_file(ref.path);  // duplicate keys refused
  require(ref.json.is_object(), ref.path + " must be a JSON object");
  return ref;
}

const nlohmann::json& reference_field(const ReferenceJson& ref, const nlohmann::json& object,
                                      const std::string& key, const std::string& field,
                                      nlohmann::json::value_t type) {
  const auto it = object.find(key);
  require(it != object.end(),
          ref.path + ": " + field + ": missing (expected " + type_name(type) + ")");
  require(has_type(*it, type),
          ref.path + ": " + field + ": expected " + type_name(type) + ", got " + it->type_name());
  return *it;
}

int64_t reference_int(const ReferenceJson& ref, const nlohmann::json& object,
                      const std::string& key, const std::string& field) {
  return reference_field(ref, object, key, field, nlohmann::json::value_t::number_integer)
      .get<int64_t>();
}

double reference_number(const ReferenceJson& ref, const nlohmann::json& object,
                        const std::string& key, const std::string& field) {
  return reference_field(ref, object, key, field, nlohmann::json::value_t::number_float)
      .get<double>();
}

bool reference_bool(const ReferenceJson& ref, const nlohmann::json& object, const std::string& key,
                    const std::string& field) {
  return reference_field(ref, object, key, field, nlohmann::json::value_t::boolean).get<bool>();
}

}  // namespace tinylm
