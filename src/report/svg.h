// A tiny SVG writer: enough shapes to draw line charts and heatmaps without a plotting
// library. Coordinates are pixels, y grows downwards (SVG's convention). Every string
// that ends up in the document goes through escape(), so token text like "<", "&" or
// quotes cannot break the XML.
#pragma once
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tinylm::svg {

// Text and attribute escaping: & < > " ' become entities; every character XML 1.0
// forbids (control characters other than tab, newline and CR; U+FFFE, U+FFFF) and every
// byte of invalid UTF-8 becomes U+FFFD, so the document always parses.
std::string escape(std::string_view text);

// A colour as "#rrggbb".
std::string rgb_hex(double r, double g, double b);  // components in [0, 1]

// Colour scales, t in [0, 1] (clamped).
std::string sequential(double t);  // viridis-like: dark purple (0) -> yellow (1)
std::string diverging(double t);   // blue (0) -> white (0.5) -> red (1)

// Text placement options.
struct TextStyle {
  double size = 12;
  std::string anchor = "start";  // start | middle | end
  std::string fill = "#222";
  double rotate = 0;  // degrees, about the anchor point
  bool bold = false;
  bool monospace = false;
};

class Document {
 public:
  Document(double width, double height);

  void rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& stroke = "none", double stroke_width = 1);
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            const std::string& dash = "");
  void circle(double cx, double cy, double r, const std::string& fill);
  // The baseline of the text starts (anchor start), centres or ends at (x, y).
  void text(double x, double y, std::string_view content, const TextStyle& style = {});
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                double width = 1.5);

  double width() const { return width_; }
  double height() const { return height_; }
  // The complete document, with an XML prologue and a white background.
  std::string str() const;

 private:
  double width_, height_;
  std::ostringstream body_;
};

// Writes the text to path (InputError if it cannot be written).
void write_file(const std::string& path, const std::string& text);

}  // namespace tinylm::svg
