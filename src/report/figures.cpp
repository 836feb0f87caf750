#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/svg.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_read.h"

namespace tinylm::report {

namespace {

std::string fmt(double v, const char* format = "%.4g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// About 5 "nice" tick values (1, 2 or 5 times a power of ten apart) covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi) {
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

// How a whitespace or control byte is shown in a label ("\n", "␣", "\x01"), or "" for
// any other byte.
std::string visible_control(unsigned char c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    case ' ':
      return "\xE2\x90\xA3";  // ␣
  }
  if (c >= 0x20 && c != 0x7F) return "";
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", c);
  return buf;
}

// The number of code points of a UTF-8 string (continuation bytes are not counted).
size_t utf8_length(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

// An upper estimate of the width in pixels of a line of text at a font size: the
// average glyph of the sans-serif and monospace fonts a browser picks is about 0.6 em
// wide (bold a little wider). Layouts reserve this much so that no text is clipped.
double text_width(const std::string& text, double size, bool bold = false) {
  return static_cast<double>(utf8_length(text)) * size * (bold ? 0.68 : 0.62);
}

}  // namespace

// ---------------------------------------------------------------- training log

LossLog parse_log_jsonl(const std::string& text, const std::string& name) {
  LossLog log;
  std::istringstream in(text);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = name + " line " + std::to_string(lineno);
    nlohmann::json j;
    try {
      j = parse_json_line(line, name, lineno);
    } catch (const InputError&) {
      if (in.eof()) break;  // a last line without its newline: one a training is writing
      throw;
    }
    require(j.is_object(), where + ": not a JSON object");
    require(j.contains("step") && j["step"].is_number(), where + ": no numeric \"step\"");
    const double step = j["step"].get<double>();
    auto value = [&](const std::string& key) {
      require(j[key].is_number(), where + ": \"" + key + "\" is not a number");
      return j[key].get<double>();
    };
    if (j.contains("loss")) log.train.emplace_back(step, value("loss"));
    if (j.contains("train_loss")) log.eval_train.emplace_back(step, value("train_loss"));
    if (j.contains("val_loss")) log.eval_val.emplace_back(step, value("val_loss"));
    for (const auto& [key, v] : j.items()) {
      if (key.rfind("val_", 0) != 0 || key == "val_loss") continue;
      const std::string metric = key.substr(4);
      require(log.metric.empty() || log.metric == metric, where + ": a second metric " + key);
      log.metric = metric;
      log.metric_val.emplace_back(step, value(key));
      if (j.contains("train_" + metric))
        log.metric_train.emplace_back(step, value("train_" + metric));
    }
  }
  require(!log.train.empty() || !log.eval_val.empty(), name + ": no loss values logged");
  return log;
}

LossLog read_log_jsonl(const std::string& path) {
  // read_file, not an ifstream: a folder opens as a stream that reads as empty.
  return parse_log_jsonl(read_file(path), path);
}

// ---------------------------------------------------------------- line charts

// Panels share the x axis (step); each has its own y range, ticks, grid and legend.
std::string line_chart_svg(const std::vector<Panel>& panels, const std::string& x_label) {
  const double left = 70, plot_w = 560, panel_h = 300, top = 36, bottom = 50;
  // The legend: a line sample (30 px) and the longest series name, 14 px from the plot.
  double legend_w = 190;
  for (const auto& p : panels)
    for (const auto& s : p.series)
      legend_w = std::max(legend_w, 14 + 30 + text_width(s.name, 12) + 10);
  const double W = left + plot_w + legend_w;
  const double H = panels.size() * (top + panel_h + bottom) + 10;
  svg::Document doc(W, H);

  double xmin = INFINITY, xmax = -INFINITY;
  for (const auto& p : panels)
    for (const auto& s : p.series)
      for (const auto& [x, y] : s.points) xmin = std::min(xmin, x), xmax = std::max(xmax, x);
  if (!(xmin < xmax)) xmin = std::isfinite(xmin) ? xmin - 1 : 0, xmax = xmin + 2;

  for (size_t pi = 0; pi < panels.size(); ++pi) {
    const Panel& panel = panels[pi];
    const double y0 = pi * (top + panel_h + bottom) + top;  // top of the plot area
    double ymin = INFINITY, ymax = -INFINITY;
    for (const auto& s : panel.series)
      for (const auto& [x, y] : s.points)
        if (std::isfinite(y)) ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    if (!(ymin < ymax)) ymin = std::isfinite(ymin) ? ymin - 1 : 0, ymax = ymin + 2;
    const double pad = 0.05 * (ymax - ymin);
    ymin -= pad, ymax += pad;
    auto px = [&](double x) { return left + (x - xmin) / (xmax - xmin) * plot_w; };
    auto py = [&](double y) { return y0 + (ymax - y) / (ymax - ymin) * panel_h; };

    doc.text(left + plot_w / 2, y0 - 12, panel.title,
             {.size = 15, .anchor = "middle", .bold = true});
    // Grid lines and ticks.
    for (double t : nice_ticks(ymin, ymax)) {
      doc.line(left, py(t), left + plot_w, py(t), "#e4e4e4");
      doc.text(left - 6, py(t) + 4, fmt(t), {.size = 11, .anchor = "end"});
    }
    for (double t : nice_ticks(xmin, xmax)) {
      doc.line(px(t), y0, px(t), y0 + panel_h, "#e4e4e4");
      doc.text(px(t), y0 + panel_h + 16, fmt(t, "%.6g"), {.size = 11, .anchor = "middle"});
    }
    doc.rect(left, y0, plot_w, panel_h, "none", "#444");
    doc.text(left + plot_w / 2, y0 + panel_h + 36, x_label, {.size = 12, .anchor = "middle"});
    doc.text(18, y0 + panel_h / 2, panel.y_label, {.size = 12, .anchor = "middle", .rotate = -90});

    // Series, then the legend: a line sample and the name for each.
    double ly = y0 + 14;
    for (const auto& s : panel.series) {
      if (s.points.empty()) continue;
      Points pts;
      for (const auto& [x, y] : s.points)
        if (std::isfinite(y)) pts.emplace_back(px(x), py(y));
      if (pts.size() >= 2) doc.polyline(pts, s.colour, s.markers ? 2 : 1.5);
      if (s.markers || pts.size() < 2)
        for (const auto& [x, y] : pts) doc.circle(x, y, 3.5, s.colour);
      const double lx = left + plot_w + 14;
      doc.line(lx, ly - 4, lx + 24, ly - 4, s.colour, 2.5);
      if (s.markers) doc.circle(lx + 12, ly - 4, 3.5, s.colour);
      doc.text(lx + 30, ly, s.name, {.size = 12});
      ly += 20;
    }
  }
  return doc.str();
}

std::string loss_curve_svg(const LossLog& log) {
  std::vector<Panel> panels;
  panels.push_back({"loss",
                    "cross-entropy loss (nats / token)",
                    {{"train (logged steps)", log.train, "#9ab8d8"},
                     {"train (evaluation)", log.eval_train, "#1f4e9c", true},
                     {"val (evaluation)", log.eval_val, "#d2461e", true}}});
  if (!log.metric_val.empty())
    panels.push_back({log.metric + " at each evaluation",
                      log.metric,
                      {{"train " + log.metric, log.metric_train, "#1f4e9c", true},
                       {"val " + log.metric, log.metric_val, "#d2461e", true}}});
  return line_chart_svg(panels);
}

// ---------------------------------------------------------------- heatmaps

std::string heatmap_grid_svg(const std::vector<std::vector<Heatmap>>& grid,
                             const std::vector<std::string>& labels, const HeatmapOptions& opt) {
  const int64_t n = static_cast<int64_t>(labels.size());
  require(n > 0 && !grid.empty(), "heatmap: nothing to draw");
  size_t ncols = 0;
  for (const auto& row : grid) ncols = std::max(ncols, row.size());
  const double nrows = static_cast<double>(grid.size());

  // Layout: a map's side shrinks with the number of maps (bounded figure size); cells
  // are at most 36 px; labels get a font of 8-12 px, and every k-th token is labelled
  // so that neighbouring labels never overlap.
  const double side_cap = std::clamp(std::min(2000.0 / ncols, 1800.0 / nrows), 110.0, 520.0);
  const double cell = std::min(36.0, side_cap / n);
  const double side = cell * n;
  const double font = std::clamp(cell * 0.6, 8.0, 12.0);
  const int64_t every = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(font * 1.25 / cell)));
  size_t longest = 1;
  for (const auto& l : labels) longest = std::max(longest, utf8_length(l));
  const double label_w = std::min<size_t>(longest, 10) * font * 0.62 + 8;
  const double title_h = 22, gap = 18, header = 58, bar_area = 110;
  // A map's slot is as wide as the map or its title (13 px bold), the map centred in it.
  double slot = side;
  for (const auto& row : grid)
    for (const auto& m : row) slot = std::max(slot, text_width(m.title, 13, true));
  const double map_w = label_w + slot + gap, map_h = title_h + side + label_w + gap;
  const std::string subtitle =
      "rows: " + opt.row_axis + ", columns: " + opt.col_axis +
      (every > 1 ? " (1 token in " + std::to_string(every) + " labelled)" : "");
  const double W = std::max({10 + ncols * map_w + bar_area, 20 + text_width(opt.title, 16, true),
                             20 + text_width(subtitle, 12)});
  const double H = header + nrows * map_h + 10;
  svg::Document doc(W, H);

  doc.text(10, 24, opt.title, {.size = 16, .bold = true});
  doc.text(10, 44, subtitle, {.size = 12, .fill = "#555"});

  const int levels = 128;  // colours are quantised so equal neighbours merge into one rect
  auto level_of = [&](float v) {
    const double t = std::isfinite(v) ? (v - opt.vmin) / (opt.vmax - opt.vmin) : 0.0;
    return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * (levels - 1)));
  };
  auto colour = [&](double t) { return opt.diverging ? svg::diverging(t) : svg::sequential(t); };

  for (size_t r = 0; r < grid.size(); ++r) {
    for (size_t c = 0; c < grid[r].size(); ++c) {
      const Heatmap& m = grid[r][c];
      require(static_cast<int64_t>(m.values.size()) == n * n,
              "heatmap \"" + m.title + "\": expected " + std::to_string(n * n) + " values");
      const double x0 = 10 + c * map_w + label_w + (slot - side) / 2,
                   y0 = header + r * map_h + title_h;
      doc.text(x0 + side / 2, y0 - 7, m.title, {.size = 13, .anchor = "middle", .bold = true});
      // Background in the most common colour, then runs of equal colour along each row.
      std::vector<int> level(m.values.size()), count(levels, 0);
      for (size_t i = 0; i < level.size(); ++i) ++count[level[i] = level_of(m.values[i])];
      const int bg = static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
      doc.rect(x0, y0, side, side, colour(bg / (levels - 1.0)));
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n;) {
          const int lv = level[i * n + j];
          int64_t end = j + 1;
          while (end < n && level[i * n + end] == lv) ++end;
          if (lv != bg)
            doc.rect(x0 + j * cell, y0 + i * cell, (end - j) * cell, cell,
                     colour(lv / (levels - 1.0)));
          j = end;
        }
      }
      doc.rect(x0, y0, side, side, "none", "#888", 0.75);
      // Token labels: queries to the left, keys below (vertical, reading upwards).
      for (int64_t i = 0; i < n; i += every) {
        const double centre = (i + 0.5) * cell;
        doc.text(x0 - 4, y0 + centre + font * 0.35, labels[i],
                 {.size = font, .anchor = "end", .monospace = true});
        doc.text(x0 + centre + font * 0.35, y0 + side + 4, labels[i],
                 {.size = font, .anchor = "end", .rotate = -90, .monospace = true});
      }
    }
  }

  // The colour bar, with the value range and its middle.
  const double bx = W - bar_area + 20, by = header + title_h, bh = std::min(260.0, H - by - 40),
               bw = 18;
  const int steps = 64;
  for (int s = 0; s < steps; ++s)
    doc.rect(bx, by + bh * s / steps, bw, bh / steps + 0.5, colour(1.0 - (s + 0.5) / steps));
  doc.rect(bx, by, bw, bh, "none", "#444", 0.75);
  for (int s = 0; s <= 2; ++s) {
    const double v = opt.vmax - s * (opt.vmax - opt.vmin) / 2, y = by + bh * s / 2;
    doc.line(bx + bw, y, bx + bw + 4, y, "#444");
    doc.text(bx + bw + 7, y + 4, fmt(v, "%.3g"), {.size = 11});
  }
  doc.text(bx + bw / 2, by + bh + 28, opt.scale_label, {.size = 11, .anchor = "middle"});
  return doc.str();
}

std::string attention_grid_svg(const std::vector<Tensor>& attention,
                               const std::vector<std::string>& labels, const std::string& title) {
  const int64_t T = static_cast<int64_t>(labels.size());
  require(!attention.empty() && T > 0, "attention figure: no layers or no tokens");
  std::vector<std::vector<Heatmap>> grid;
  float vmax = 0;
  for (size_t l = 0; l < attention.size(); ++l) {
    const Tensor& a = attention[l];
    require(a.numel() > 0 && a.numel() % (T * T) == 0,
            "attention figure: layer " + std::to_string(l) + " has shape " + shape_str(a.shape()) +
                ", not [1, H, " + std::to_string(T) + ", " + std::to_string(T) + "]");
    const int64_t heads = a.numel() / (T * T);
    grid.emplace_back();
    for (int64_t h = 0; h < heads; ++h) {
      const float* p = a.data() + h * T * T;
      grid.back().push_back({"layer " + std::to_string(l) + ", head " + std::to_string(h),
                             std::vector<float>(p, p + T * T)});
      vmax = std::max(vmax, *std::max_element(p, p + T * T));
    }
  }
  HeatmapOptions opt;
  opt.title = title;
  opt.vmax = std::max(vmax, 1e-6f);
  opt.scale_label = "attention weight";
  opt.row_axis = "query token (attending)";
  opt.col_axis = "key token (attended to)";
  return heatmap_grid_svg(grid, labels, opt);
}

std::string similarity_matrix_svg(const std::vector<float>& matrix,
                                  const std::vector<std::string>& labels,
                                  const std::string& title) {
  HeatmapOptions opt;
  opt.title = title;
  opt.vmin = -1;
  opt.diverging = true;
  opt.scale_label = "cosine similarity";
  opt.row_axis = opt.col_axis = "embedding row";
  return heatmap_grid_svg({{{"", matrix}}}, labels, opt);
}

std::vector<float> cosine_similarity(const Tensor& table, const std::vector<int64_t>& rows) {
  require(table.ndim() == 2,
          "cosine similarity: expected a [N, C] table, got " + shape_str(table.shape()));
  const int64_t N = table.shape()[0], C = table.shape()[1];
  std::vector<double> norm(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    require(rows[i] >= 0 && rows[i] < N, "row " + std::to_string(rows[i]) +
                                             " is outside the table of " + std::to_string(N) +
                                             " rows");
    const float* a = table.data() + rows[i] * C;
    double s = 0;
    for (int64_t k = 0; k < C; ++k) s += double(a[k]) * a[k];
    norm[i] = std::sqrt(s);
  }
  std::vector<float> out(rows.size() * rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows.size(); ++j) {
      const float *a = table.data() + rows[i] * C, *b = table.data() + rows[j] * C;
      double dot = 0;
      for (int64_t k = 0; k < C; ++k) dot += double(a[k]) * b[k];
      const double d = norm[i] * norm[j];
      out[i * rows.size() + j] = d > 0 ? static_cast<float>(dot / d) : 0.0f;
    }
  return out;
}

std::string visible_token(const std::string& text, size_t max_chars) {
  std::string out;
  size_t chars = 0, i = 0;
  for (; i < text.size() && chars < max_chars; ++chars) {
    const std::string shown = visible_control(static_cast<unsigned char>(text[i]));
    if (!shown.empty()) {
      out += shown;
      ++i;
      continue;
    }
    do out += text[i++];  // one code point: its lead byte and continuation bytes
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80);
  }
  if (i < text.size()) out += "\xE2\x80\xA6";  // …
  return out.empty() ? "\xE2\x88\x85" : out;   // ∅ for an empty token
}

}  // namespace tinylm::report
