// TSV, CSV (RFC 4180) and JSONL records: see delimited_file.h.
#include "data/delimited_file.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"
#include "util/utf8.h"

namespace tinylm {

namespace {

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// Calls f(line_number, line) for every line of text, without its '\n' or trailing '\r'.
template <class F>
void for_each_line(const std::string& text, F f) {
  size_t start = 0;
  int64_t number = 1;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    f(number, line);
    start = end + 1;
    ++number;
  }
}

std::vector<TableRecord> parse_tsv(const std::string& text) {
  std::vector<TableRecord> records;
  for_each_line(text, [&](int64_t number, const std::string& line) {
    if (is_blank(line)) return;
    TableRecord r;
    r.line = number;
    size_t start = 0;
    while (true) {
      const size_t tab = line.find('\t', start);
      r.fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    records.push_back(std::move(r));
  });
  return records;
}

std::vector<TableRecord> parse_jsonl(const std::string& text, const std::string& what) {
  std::vector<TableRecord> records;
  for_each_line(text, [&](int64_t number, const std::string& line) {
    if (is_blank(line)) return;
    TableRecord r;
    r.line = number;
    r.object = parse_json_line(line, what, number);  // duplicate keys refused
    require(r.object.is_object(),
            what + ":" + std::to_string(number) + ": expected a JSON object per line");
    records.push_back(std::move(r));
  });
  return records;
}

}  // namespace

TableFormat table_format(const std::string& name, const std::string& path) {
  if (name == "tsv") return TableFormat::kTsv;
  if (name == "csv") return TableFormat::kCsv;
  if (name == "jsonl") return TableFormat::kJsonl;
  require(name.empty(), "unknown data format '" + name + "' (expected tsv, csv or jsonl)");
  require_readable_file(path);  // a folder or a missing file is that, not a bad extension
  const std::string ext = lowercase_extension(path);
  if (ext == ".tsv" || ext == ".txt") return TableFormat::kTsv;
  if (ext == ".csv") return TableFormat::kCsv;
  if (ext == ".jsonl" || ext == ".ndjson") return TableFormat::kJsonl;
  throw InputError(path + ": cannot tell the format from the extension '" + ext +
                   "' (name it: tsv, csv or jsonl)");
}

std::vector<TableRecord> parse_csv(const std::string& text, const std::string& what) {
  std::vector<TableRecord> records;
  TableRecord record;
  std::string field;
  bool in_quotes = false;
  bool field_was_quoted = false;
  int64_t line = 1, quote_line = 0;
  record.line = 1;
  const auto end_field = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
    field_was_quoted = false;
  };
  const auto end_record = [&] {
    end_field();
    const bool blank = record.fields.size() == 1 && record.fields[0].empty();
    if (!blank) records.push_back(std::move(record));
    record = TableRecord{};
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && field.empty() && !field_was_quoted) {
      in_quotes = field_was_quoted = true;
      quote_line = line;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
      ++line;
      record.line = line;
    } else {
      require(!field_was_quoted,
              what + ":" + std::to_string(line) + ": text after the closing quote of a field");
      field += c;
    }
  }
  require(!in_quotes, what + ":" + std::to_string(quote_line) + ": quote never closed");
  if (!field.empty() || !record.fields.empty() || field_was_quoted) end_record();
  return records;
}

std::vector<TableRecord> read_table(const std::string& path, TableFormat format) {
  std::string text = read_file(path);                        // InputError for a folder, naming it
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 byte order mark
  const size_t bad = utf8_first_invalid(text);
  if (bad != std::string::npos) {
    const int64_t line = 1 + std::count(text.begin(), text.begin() + bad, '\n');
    throw InputError(path + ":" + std::to_string(line) + ": invalid UTF-8 at byte " +
                     std::to_string(bad));
  }
  switch (format) {
    case TableFormat::kTsv:
      return parse_tsv(text);
    case TableFormat::kCsv:
      return parse_csv(text, path);
    case TableFormat::kJsonl:
      return parse_jsonl(text, path);
  }
  return {};
}

bool is_blank(const std::string& s) {
  return s.find_first_not_of(" \t\r\n") == std::string::npos;
}

}  // namespace tinylm
