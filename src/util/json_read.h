// Reading JSON that someone else wrote (configs, reference.json, Hugging Face
// config.json, tokenizer files, meta.json, checkpoint metadata) without undefined
// behaviour: one parser that rejects duplicate keys, and one checked accessor through
// which every field is read. Every failure is an InputError naming the file and the
// field ("reference.json: adamw.betas[1] must be a number"), so the command exits 2.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

// Parses text as JSON. InputError "<name>: not valid JSON (...)" when malformed, and
// "<name>: duplicate key "k" in <object>" when an object names a key twice.
nlohmann::json parse_json(std::string_view text, const std::string& name);

// read_file + parse_json.
nlohmann::json read_json_file(const std::string& path);

// A checked view of one value in a parsed document (which must outlive it).
class JsonField {
 public:
  JsonField(const nlohmann::json& value, std::string file, std::string path = "");

  const nlohmann::json& raw() const { return *value_; }
  // "file: a.b[2]" (or "file" for the whole document).
  std::string name() const;

  bool is_object() const { return value_->is_object(); }
  bool is_array() const { return value_->is_array(); }
  bool is_null() const { return value_->is_null(); }
  bool is_string() const { return value_->is_string(); }
  bool is_number() const { return value_->is_number(); }
  // True when this is an object holding key.
  bool has(const std::string& key) const;
  // The value under key; InputError if this is not an object or the key is missing.
  JsonField operator[](const std::string& key) const;
  // Element i of an array; InputError if not an array or i is past its end.
  JsonField operator[](size_t i) const;
  // Length of an array (InputError for anything else).
  size_t size() const;
  void require_object() const;
  void require_array() const;

  // Typed reads; InputError naming the field for a wrong type or a value out of range.
  int64_t integer(int64_t lo, int64_t hi) const;
  double number() const;       // finite
  float float_number() const;  // finite as a float
  std::string string() const;
  bool boolean() const;
  std::vector<int64_t> integers(int64_t lo, int64_t hi) const;
  std::vector<std::string> strings() const;  // an array of strings

 private:
  std::string child(const std::string& key) const;
  const nlohmann::json* value_;
  std::string file_, path_;
};

}  // namespace tinylm
