#include "report/text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tinylm::report {

std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

namespace {

// value scaled by the largest unit it reaches (factor apart), 3 significant digits.
std::string scaled(double value, double factor, const std::vector<std::string>& units) {
  size_t u = 0;
  while (u + 1 < units.size() && std::fabs(value) >= factor) value /= factor, ++u;
  if (u == 0) return fixed(value, 0) + " " + units[0];
  const int decimals = std::fabs(value) >= 100 ? 1 : 2;
  return fixed(value, decimals) + " " + units[u];
}

}  // namespace

std::string human_bytes(double bytes) {
  return scaled(bytes, 1024.0, {"B", "KiB", "MiB", "GiB", "TiB"});
}

std::string human_flops(double flops) {
  return scaled(flops, 1000.0, {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"});
}

std::string percent(double part, double whole) {
  if (whole == 0) return "-";
  return fixed(100.0 * part / whole, 2) + "%";
}

TextTable::TextTable(std::vector<std::string> headers, std::vector<bool> right_aligned)
    : headers_(std::move(headers)), right_(std::move(right_aligned)) {
  right_.resize(headers_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  lines_.push_back({Line::Row, std::move(cells)});
}

void TextTable::add_heading(std::string text) {
  lines_.push_back({Line::Heading, {text}});
}

void TextTable::add_rule() {
  lines_.push_back({Line::Rule, {}});
}

std::string TextTable::render(int indent) const {
  std::vector<size_t> width(headers_.size());
  for (size_t i = 0; i < headers_.size(); ++i) width[i] = headers_[i].size();
  for (const auto& line : lines_)
    if (line.kind == Line::Row)
      for (size_t i = 0; i < line.cells.size(); ++i)
        width[i] = std::max(width[i], line.cells[i].size());
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  total -= 2;

  const std::string pad(indent, ' ');
  auto row_text = [&](const std::vector<std::string>& cells) {
    std::string s = pad;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string fill(width[i] - cells[i].size(), ' ');
      s += right_[i] ? fill + cells[i] : cells[i] + fill;
      if (i + 1 < cells.size()) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = row_text(headers_);
  out += pad + std::string(total, '-') + "\n";
  for (const auto& line : lines_) {
    if (line.kind == Line::Row)
      out += row_text(line.cells);
    else if (line.kind == Line::Heading)
      out += pad + line.cells[0] + "\n";
    else
      out += pad + std::string(total, '-') + "\n";
  }
  return out;
}

}  // namespace tinylm::report
