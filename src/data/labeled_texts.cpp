// (label, text) pairs from a table file: column choice and header detection, see
// labeled_texts.h.
#include "data/labeled_texts.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "data/delimited_file.h"
#include "util/error.h"
#include "util/integer_text.h"

namespace tinylm {

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string lower_trimmed(const std::string& s) {
  std::string out = trimmed(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

constexpr int64_t kLastField = -2;
// A column index beyond any line a text file holds (a line of 2^31 fields has 2 GB).
constexpr int64_t kMaxColumnIndex = INT32_MAX;

// A column as the user named it: a name, or an index when it is all digits.
struct Column {
  std::string what;  // "label" or "text", for messages
  std::string name;
  int64_t index = -1;
};

Column parse_column(const std::string& spec, const std::string& what) {
  Column c{what, "", -1};
  if (all_digits(spec)) {  // "99999999999999999999" is bad input, not an exception
    c.index = parse_integer(spec, 0, kMaxColumnIndex, what + " column index");
  } else {
    c.name = spec;
  }
  return c;
}

int64_t find_in_header(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (lower_trimmed(header[i]) == lower_trimmed(name)) return static_cast<int64_t>(i);
  return -1;
}

std::string where(const std::string& path, int64_t line) {
  return path + ":" + std::to_string(line);
}

// A JSONL field as text: strings as they are, numbers and booleans as their JSON text.
std::string json_field(const TableRecord& r, const Column& c, const std::string& path) {
  require(c.index < 0, path + ": JSONL columns are named, not numbered (" + c.what + " column " +
                           std::to_string(c.index) + ")");
  const auto it = r.object.find(c.name);
  require(it != r.object.end() && !it->is_null(),
          where(path, r.line) + ": missing " + c.what + " column '" + c.name + "'");
  if (it->is_string()) return it->get<std::string>();
  require(it->is_number() || it->is_boolean(), where(path, r.line) + ": " + c.what + " column '" +
                                                   c.name + "' must be a string or a number");
  return it->dump();
}

}  // namespace

std::vector<LabeledText> read_labeled_texts(const std::string& path,
                                            const LabeledTextFormat& format, bool need_labels) {
  const TableFormat table = table_format(format.format, path);
  require(format.header == "auto" || format.header == "yes" || format.header == "no",
          "header must be auto, yes or no (got '" + format.header + "')");
  std::vector<TableRecord> records = read_table(path, table);
  require(!records.empty(), path + ": no examples (the file is empty)");

  const bool defaults = format.label_column.empty() && format.text_column.empty();
  Column label = parse_column(format.label_column.empty() ? "label" : format.label_column, "label");
  Column text = parse_column(format.text_column.empty() ? "text" : format.text_column, "text");

  if (table != TableFormat::kJsonl) {
    // Which names must the first record hold to be a header?
    std::vector<const Column*> named;
    if (need_labels && !label.name.empty()) named.push_back(&label);
    if (!text.name.empty()) named.push_back(&text);
    const auto& first = records.front().fields;
    bool header = false;
    if (format.header == "yes") {
      header = true;
    } else if (format.header == "auto") {
      header = std::any_of(named.begin(), named.end(),
                           [&](const Column* c) { return find_in_header(first, c->name) >= 0; });
      // Default names, or columns by index: a header naming label and text is skipped.
      if (defaults || named.empty())
        header = find_in_header(first, "label") >= 0 && find_in_header(first, "text") >= 0;
    }
    for (Column* c : {&label, &text}) {
      if (c->name.empty() || (c == &label && !need_labels)) continue;
      if (header) {
        c->index = find_in_header(first, c->name);
        require(c->index >= 0, path + ":" + std::to_string(records.front().line) +
                                   ": the header has no " + c->what + " column named '" + c->name +
                                   "'");
      } else if (defaults) {
        c->index = c == &label ? 0 : 1;  // no header: label, text
      } else {
        throw InputError(path + ": no header line naming the " + c->what + " column '" + c->name +
                         "' (give the column's index, or header yes)");
      }
    }
    if (!need_labels && defaults && !header) text.index = kLastField;
    if (header) records.erase(records.begin());
    require(!records.empty(), path + ": no examples (only a header line)");
  }

  std::vector<LabeledText> out;
  out.reserve(records.size());
  for (const TableRecord& r : records) {
    LabeledText t;
    t.line = r.line;
    if (table == TableFormat::kJsonl) {
      if (need_labels) t.label = json_field(r, label, path);
      t.text = json_field(r, text, path);
    } else {
      for (const Column* c : {&label, &text}) {
        if (c == &label && !need_labels) continue;
        const int64_t index =
            c->index == kLastField ? static_cast<int64_t>(r.fields.size()) - 1 : c->index;
        require(index < static_cast<int64_t>(r.fields.size()),
                where(path, r.line) + ": missing " + c->what + " column (column " +
                    std::to_string(c->index) + ", the line has " + std::to_string(r.fields.size()) +
                    ")");
        (c == &label ? t.label : t.text) = r.fields[index];
      }
    }
    if (need_labels) {
      t.label = trimmed(t.label);
      require(!t.label.empty(), where(path, r.line) + ": empty label");
    }
    require(!is_blank(t.text), where(path, r.line) + ": empty text");
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace tinylm
