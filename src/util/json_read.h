// Reading JSON that someone else wrote (configs, reference.json, Hugging Face
// config.json, tokenizer files, meta.json, checkpoint metadata) without undefined
// behaviour: one parser that rejects duplicate keys, and one checked accessor through
// which every field is read. Every failure is an InputError naming the file and the
// field ("reference.json: adamw.betas[1] must be a number"), so the command exits 2.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tinylm {

// The deepest nesting of arrays and objects a document from outside may have. Real
// inputs nest a few levels (a train config 3, a Hugging Face config.json 3, a tokenizer
// file 2); a crafted one (150,000 '[' in 300 KB) would otherwise overflow the stack in
// the operations that recurse over a parsed value (copy, dump, compare). The parser
// itself does not recurse and stops at the first bracket past the bound.
inline constexpr int kMaxJsonDepth = 512;

// What a reader may tighten (a safetensors header nests 3 levels and bounds its keys).
struct JsonRules {
  int max_depth = kMaxJsonDepth;
  // Sees every key in file order with the number of objects around it (1: a key of the
  // top-level object), after the duplicate check; may throw InputError to stop.
  std::function<void(const std::string& key, int depth)> on_key;
};

// Parses text as JSON. InputError when it is malformed ("<name>: not valid JSON (...)"),
// when an object names a key twice ("<name>: duplicate key "k" on line 3") and when
// arrays and objects nest deeper than kMaxJsonDepth ("<name>: JSON nested deeper than
// 512 levels on line 1"). Time and memory are linear in the text; nothing recurses.
nlohmann::json parse_json(std::string_view text, const std::string& name,
                          const JsonRules& rules = {});

// parse_json for one line of a JSONL file: messages start "<file>:<line_number>: ".
nlohmann::json parse_json_line(std::string_view line, const std::string& file, int64_t line_number);

// read_file + parse_json.
nlohmann::json read_json_file(const std::string& path);

// A checked view of one value in a parsed document (which must outlive it).
class JsonField {
 public:
  JsonField(const nlohmann::json& value, std::string file, std::string path = "");

  const nlohmann::json& raw() const { return *value_; }
  // "file: a.b[2]" (or "file" for the whole document).
  std::string name() const;

  bool is_object() const;
  bool is_array() const;
  bool is_null() const;
  bool is_string() const;
  bool is_number() const;
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
