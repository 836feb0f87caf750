// Reading a table of text records from a TSV, CSV or JSONL file, with the line each
// record starts on (for error messages).
//
//   TSV   one record per line, fields split at every tab; no quoting (a '"' is an
//         ordinary character, as in the SMS spam file, whose texts start with quotes)
//   CSV   RFC 4180: fields split at commas; a field in double quotes may hold commas,
//         line breaks and "" (one quote); CRLF or LF line endings. As Python's csv
//         module, a quote inside an unquoted field is kept as a character; text after
//         the closing quote of a field is an error
//   JSONL one JSON object per line; fields are looked up by name (strings as they are,
//         numbers and booleans as their JSON text, e.g. 1 -> "1")
// Blank lines (TSV, JSONL; CSV outside quotes) are skipped. A trailing '\r' is removed,
// and so is a UTF-8 byte order mark at the start of the file (spreadsheets write one).
// The file must be UTF-8. Errors are InputError naming the file and the line: invalid
// UTF-8, an unterminated quote (CSV), a line that is not a JSON object (JSONL).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tinylm {

enum class TableFormat { kTsv, kCsv, kJsonl };

// "tsv", "csv", "jsonl" -> the format; "" -> from the file's extension (.tsv / .txt: TSV,
// .csv: CSV, .jsonl / .ndjson: JSONL). InputError for anything else, naming it, and (before
// the extension is looked at) for a path that is a folder or cannot be opened.
TableFormat table_format(const std::string& name, const std::string& path);

// One record of a TSV or CSV file: its fields, or one JSONL object.
struct TableRecord {
  int64_t line = 0;                 // 1-based line where the record starts
  std::vector<std::string> fields;  // TSV / CSV
  nlohmann::json object;            // JSONL
};

// Every record of the file, in file order.
std::vector<TableRecord> read_table(const std::string& path, TableFormat format);

// Splits CSV text into records (RFC 4180); `what` names the file in errors.
std::vector<TableRecord> parse_csv(const std::string& text, const std::string& what);

// True when `s` holds nothing but spaces, tabs and line ends.
bool is_blank(const std::string& s);

}  // namespace tinylm
