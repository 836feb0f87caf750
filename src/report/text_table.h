// Plain-text tables with aligned columns, and the number formats the reports use.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tinylm::report {

std::string with_commas(int64_t n);              // 124439808 -> "124,439,808"
std::string human_bytes(double bytes);           // "1.50 GiB", "12.0 MiB", "512 B"
std::string human_flops(double flops);           // "1.16 TFLOP", "884.7 kFLOP"
std::string percent(double part, double whole);  // "12.34%" ("-" when whole is 0)
std::string fixed(double value, int decimals);   // "1.07"

class TextTable {
 public:
  // One header per column; a column is right-aligned when its flag is set.
  TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned);

  void add_row(std::vector<std::string> cells);  // missing trailing cells are empty
  void add_heading(std::string text);            // a line of its own, not aligned
  void add_rule();                               // a line of dashes across the table

  // Every line starts with `indent` spaces; columns are two spaces apart.
  std::string render(int indent = 2) const;

 private:
  struct Line {
    enum Kind { Row, Heading, Rule } kind;
    std::vector<std::string> cells;
  };
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<Line> lines_;
};

}  // namespace tinylm::report
