// Reading a fixture's reference.json defensively: every field the checks use is looked
// up with its type, and a missing or mistyped field is an InputError naming the file
// and the field ("DIR/reference.json: cases.plain.loss: missing (expected a number)").
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace tinylm {

struct ReferenceJson {
  nlohmann::json json;
  std::string path;  // DIR/reference.json, for messages

  // The fixture kind: the string field "task", or "" when there is none (the language
  // model fixtures gpt2-micro / gpt2-tiny).
  std::string task() const;
};

// Parses DIR/reference.json (InputError if it is missing or not JSON).
ReferenceJson read_reference_json(const std::string& dir);

// Typed fields of `object`; `field` is the dotted name used in messages.
const nlohmann::json& reference_field(const ReferenceJson& ref, const nlohmann::json& object,
                                      const std::string& key, const std::string& field,
                                      nlohmann::json::value_t type);
int64_t reference_int(const ReferenceJson& ref, const nlohmann::json& object,
                      const std::string& key, const std::string& field);
double reference_number(const ReferenceJson& ref, const nlohmann::json& object,
                        const std::string& key, const std::string& field);
bool reference_bool(const ReferenceJson& ref, const nlohmann::json& object, const std::string& key,
                    const std::string& field);

}  // namespace tinylm
