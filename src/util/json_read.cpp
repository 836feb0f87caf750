#include "util/json_read.h"

#include <cmath>
#include <limits>
#include <set>

#include "util/error.h"
#include "util/files.h"

namespace tinylm {

namespace {

// What an error message points at: the n-th key, or the n-th '[' or '{', of a document.
enum class Landmark { kKey, kOpening };

size_t skip_space(std::string_view text, size_t i) {
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    ++i;
  return i;
}

// The 1-based line of the n-th (0-based) landmark of text, in the order the parser meets
// them: keys are the strings followed by ':', openings the brackets outside strings. One
// pass, no recursion; run only to place an error message.
int64_t line_of(std::string_view text, Landmark what, int64_t n) {
  int64_t line = 1, string_line = 1, seen = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
        const size_t next = skip_space(text, i + 1);
        if (what == Landmark::kKey && next < text.size() && text[next] == ':' && seen++ == n)
          return string_line;
      }
    } else if (c == '"') {
      in_string = true;
      string_line = line;
    } else if ((c == '[' || c == '{') && what == Landmark::kOpening && seen++ == n) {
      return line;
    }
  }
  return line;
}

// The parser, with the checks parse_json documents. message(line, problem) words every
// error; line is 0 where nlohmann's own message already says where.
template <class Message>
nlohmann::json parse_checked(std::string_view text, Message message) {
  using E = nlohmann::json::parse_event_t;
  std::vector<std::set<std::string>> open_objects;  // keys seen, innermost object last
  int64_t keys = 0, openings = 0;  // landmarks met so far, to find the line of an error
  const nlohmann::json::parser_callback_t check = [&](int depth, E event, nlohmann::json& parsed) {
    if (event == E::object_start || event == E::array_start) {
      // depth counts the arrays and objects around this one.
      if (depth >= kMaxJsonDepth)
        throw InputError(
            message(line_of(text, Landmark::kOpening, openings),
                    "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"));
      ++openings;
      if (event == E::object_start) open_objects.emplace_back();
    } else if (event == E::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == E::key && !open_objects.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second)
        throw InputError(
            message(line_of(text, Landmark::kKey, keys), "duplicate key \"" + key + "\""));
      ++keys;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), check);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(message(0, std::string("not valid JSON (") + e.what() + ")"));
  }
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& name) {
  // The line goes after the problem ("c.json: duplicate key "a" on line 3"), as a name
  // may itself hold a colon ("model.safetensors: tinylm.config").
  return parse_checked(text, [&](int64_t line, const std::string& problem) {
    return name + ": " + problem + (line > 0 ? " on line " + std::to_string(line) : "");
  });
}

nlohmann::json parse_json_line(std::string_view line, const std::string& file,
                               int64_t line_number) {
  return parse_checked(line, [&](int64_t, const std::string& problem) {
    return file + ":" + std::to_string(line_number) + ": " + problem;
  });
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
