#include "util/json_read.h"

#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

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

using Json = nlohmann::json;
using Message = std::function<std::string(int64_t line, const std::string& problem)>;

// Builds the document from nlohmann's SAX events, as its own DOM parser does (a stack of
// the open arrays and objects; no recursion, time linear in the text), and checks it on
// the way. nlohmann's parser with a callback is not used: at the end of every object it
// scans the whole enclosing container, which is quadratic in an array of objects.
class CheckedBuilder {
 public:
  CheckedBuilder(std::string_view text, const JsonRules& rules, const Message& message)
      : text_(text), rules_(rules), message_(message) {}

  Json& root() { return root_; }

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(Json::number_integer_t v) { return add(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return add(v); }
  bool string(Json::string_t& v) { return add(std::move(v)); }
  bool binary(Json::binary_t& v) { return add(Json::binary(std::move(v))); }

  bool start_object(size_t) { return open(Json::value_t::object); }
  bool start_array(size_t) { return open(Json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(Json::string_t& k) {
    // The object being built holds every key seen so far: a second one is a duplicate.
    if (open_.back()->contains(k))
      fail(line_of(text_, Landmark::kKey, keys_), "duplicate key \"" + k + "\"");
    ++keys_;
    if (rules_.on_key) rules_.on_key(k, static_cast<int>(open_.size()));
    key_ = std::move(k);
    return true;
  }

  // nlohmann's exception, rethrown with its own type (caught and worded by the caller).
  template <class Exception>
  bool parse_error(size_t, const std::string&, const Exception& e) {
    throw e;
  }

 private:
  [[noreturn]] void fail(int64_t line, const std::string& problem) {
    throw InputError(message_(line, problem));
  }

  // Puts v where the parser is: the root, the next element of an array, or the value of
  // the last key. Returns true (go on), as SAX handlers do.
  bool add(Json&& v) {
    last_ = place(std::move(v));
    return true;
  }
  Json* place(Json&& v) {
    if (open_.empty()) return &(root_ = std::move(v));
    Json& parent = *open_.back();
    if (parent.is_array()) {
      parent.get_ref<Json::array_t&>().push_back(std::move(v));
      return &parent.get_ref<Json::array_t&>().back();
    }
    return &(parent.get_ref<Json::object_t&>()[key_] = std::move(v));
  }

  // An array or object starts: at most rules.max_depth may be open at once. The pointer
  // stays valid: its parent gets no other element until it is closed.
  bool open(Json::value_t type) {
    if (static_cast<int>(open_.size()) >= rules_.max_depth)
      fail(line_of(text_, Landmark::kOpening, openings_),
           "JSON nested deeper than " + std::to_string(rules_.max_depth) + " levels");
    ++openings_;
    add(Json(type));
    open_.push_back(last_);
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  std::string_view text_;
  const JsonRules& rules_;
  const Message& message_;
  Json root_;
  std::vector<Json*> open_;          // the open arrays and objects, innermost last
  Json* last_ = nullptr;             // the value added last
  std::string key_;                  // the key of the next value in an object
  int64_t keys_ = 0, openings_ = 0;  // landmarks met so far, to find the line of an error
};

// The parser, with the checks parse_json documents. message(line, problem) words every
// error; line is 0 where nlohmann's own message already says where.
Json parse_checked(std::string_view text, const JsonRules& rules, const Message& message) {
  CheckedBuilder builder(text, rules, message);
  try {
    Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {
    // nlohmann's message less its "[json.exception.parse_error.101] " tag: what is wrong
    // and where, in words.
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
      what = what.substr(what.find("] ") + 2);
    throw InputError(message(0, "not valid JSON (" + what + ")"));
  }
  return std::move(builder.root());
}

}  // namespace

Json parse_json(std::string_view text, const std::string& name, const JsonRules& rules) {
  // The line goes after the problem ("c.json: duplicate key "a" on line 3"), as a name
  // may itself hold a colon ("model.safetensors: tinylm.config").
  return parse_checked(text, rules, [&](int64_t line, const std::string& problem) {
    return name + ": " + problem + (line > 0 ? " on line " + std::to_string(line) : "");
  });
}

Json parse_json_line(std::string_view line, const std::string& file, int64_t line_number) {
  return parse_checked(line, JsonRules{}, [&](int64_t, const std::string& problem) {
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

bool JsonField::is_object() const { return value_->is_object(); }
bool JsonField::is_array() const { return value_->is_array(); }
bool JsonField::is_null() const { return value_->is_null(); }
bool JsonField::is_string() const { return value_->is_string(); }
bool JsonField::is_number() const { return value_->is_number(); }

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
