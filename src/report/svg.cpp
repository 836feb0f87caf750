#include "report/svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "util/error.h"
#include "util/files.h"
#include "util/utf8.h"

namespace tinylm::svg {

namespace {

// Numbers with at most 2 decimals and no trailing zeros keep big heatmaps small.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

// Piecewise-linear interpolation between equally spaced colour stops.
template <size_t N>
std::string interpolate(const std::array<std::array<double, 3>, N>& stops, double t) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * (N - 1);
  const size_t i = std::min(static_cast<size_t>(t), N - 2);
  const double f = t - static_cast<double>(i);
  const auto& a = stops[i];
  const auto& b = stops[i + 1];
  return rgb_hex(a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2]));
}

}  // namespace

// XML 1.0's Char production: tab, newline, carriage return, and every code point from
// U+0020 on except the surrogates (never decoded) and U+FFFE, U+FFFF.
bool allowed_in_xml(char32_t cp) {
  if (cp < 0x20) return cp == '\t' || cp == '\n' || cp == '\r';
  return cp != 0xFFFE && cp != 0xFFFF;
}

// The entity of a markup character, or nullptr.
const char* markup_entity(char32_t cp) {
  switch (cp) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&apos;";
    default:
      return nullptr;
  }
}

std::string escape(std::string_view text) {
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    char32_t cp = 0;
    const int len = utf8_decode_one(text, pos, &cp);
    if (len == 0) {  // a byte of invalid UTF-8: one U+FFFD each
      out += kReplacement;
      pos += 1;
      continue;
    }
    if (const char* entity = markup_entity(cp))
      out += entity;
    else if (!allowed_in_xml(cp))
      out += kReplacement;
    else
      out.append(text, pos, static_cast<size_t>(len));
    pos += static_cast<size_t>(len);
  }
  return out;
}

std::string rgb_hex(double r, double g, double b) {
  auto byte = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(r), byte(g), byte(b));
  return buf;
}

std::string sequential(double t) {
  static const std::array<std::array<double, 3>, 5> viridis = {{{0.267, 0.005, 0.329},
                                                                {0.231, 0.322, 0.545},
                                                                {0.129, 0.569, 0.549},
                                                                {0.369, 0.788, 0.384},
                                                                {0.993, 0.906, 0.144}}};
  return interpolate(viridis, t);
}

std::string diverging(double t) {
  static const std::array<std::array<double, 3>, 3> blue_white_red = {
      {{0.129, 0.400, 0.675}, {0.969, 0.969, 0.969}, {0.698, 0.094, 0.169}}};
  return interpolate(blue_white_red, t);
}

Document::Document(double width, double height) : width_(width), height_(height) {}

void Document::rect(double x, double y, double w, double h, const std::string& fill,
                    const std::string& stroke, double stroke_width) {
  body_ << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
        << "\" height=\"" << num(h) << "\" fill=\"" << fill << '"';
  if (stroke != "none")
    body_ << " stroke=\"" << stroke << "\" stroke-width=\"" << num(stroke_width) << '"';
  body_ << "/>\n";
}

void Document::line(double x1, double y1, double x2, double y2, const std::string& stroke,
                    double width, const std::string& dash) {
  body_ << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\""
        << num(y2) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << num(width) << '"';
  if (!dash.empty()) body_ << " stroke-dasharray=\"" << dash << '"';
  body_ << "/>\n";
}

void Document::circle(double cx, double cy, double r, const std::string& fill) {
  body_ << "<circle cx=\"" << num(cx) << "\" cy=\"" << num(cy) << "\" r=\"" << num(r)
        << "\" fill=\"" << fill << "\"/>\n";
}

void Document::text(double x, double y, std::string_view content, const TextStyle& s) {
  body_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" font-size=\"" << num(s.size)
        << "\" text-anchor=\"" << s.anchor << "\" fill=\"" << s.fill << '"';
  if (s.bold) body_ << " font-weight=\"bold\"";
  if (s.monospace) body_ << " font-family=\"monospace\"";
  if (s.rotate != 0)
    body_ << " transform=\"rotate(" << num(s.rotate) << ' ' << num(x) << ' ' << num(y) << ")\"";
  // xml:space keeps a token made of spaces visible as such.
  body_ << " xml:space=\"preserve\">" << escape(content) << "</text>\n";
}

void Document::polyline(const std::vector<std::pair<double, double>>& points,
                        const std::string& stroke, double width) {
  body_ << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"" << num(width)
        << "\" stroke-linejoin=\"round\" points=\"";
  for (size_t i = 0; i < points.size(); ++i)
    body_ << (i ? " " : "") << num(points[i].first) << ',' << num(points[i].second);
  body_ << "\"/>\n";
}

std::string Document::str() const {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width_) << "\" height=\""
      << num(height_) << "\" viewBox=\"0 0 " << num(width_) << ' ' << num(height_)
      << "\" font-family=\"sans-serif\">\n"
      << "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      << body_.str() << "</svg>\n";
  return out.str();
}

void write_file(const std::string& path, const std::string& text) {
  write_file_atomic(path, text);
}

}  // namespace tinylm::svg
