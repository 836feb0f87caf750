// Figures of a run, as SVG text (report/svg.h draws them; nothing else is needed):
//   loss_curve_svg        the training log: loss against step (top panel) and the
//                         evaluation metric (bpc / ppl / ...) against step (bottom panel)
//   heatmap_grid_svg      a grid of square T x T heatmaps sharing token labels on both
//                         axes and one colour scale (attention maps, similarity matrices)
//   attention_grid_svg    attention weights A[l][h] of one forward pass: rows = layers,
//                         cols = heads, query tokens down the side, key tokens along
//                         the bottom; colour = how much the query attends to the key
//   similarity_matrix_svg cosine similarities between embedding rows, diverging colours
//                         from -1 (blue) through 0 (white) to +1 (red)
// Heatmaps stay readable at any T: cells shrink with T (up to a bounded figure size),
// and only every k-th token is labelled once labels would overlap.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace tinylm::report {

// ---- training log (RUN/log.jsonl) ----

using Points = std::vector<std::pair<double, double>>;  // (step, value)

struct LossLog {
  Points train;        // "loss" of the logged training steps
  Points eval_train;   // "train_loss" of the evaluations
  Points eval_val;     // "val_loss"
  std::string metric;  // the evaluation metric besides loss ("bpc", "ppl", ...), or ""
  Points metric_train, metric_val;
};

// Parses the JSON lines of a log; InputError (naming the line) for malformed lines,
// and for a log with no loss at all. A malformed last line without its newline is
// skipped: a running training may be writing it.
LossLog parse_log_jsonl(const std::string& text, const std::string& name = "log.jsonl");
LossLog read_log_jsonl(const std::string& path);  // InputError if missing

struct Series {
  std::string name;
  Points points;
  std::string colour;
  bool markers = false;  // a dot per point (sparse series such as evaluations)
};

// One chart panel per entry of `panels` (title, y-axis label, series), stacked.
struct Panel {
  std::string title, y_label;
  std::vector<Series> series;
};
std::string line_chart_svg(const std::vector<Panel>& panels, const std::string& x_label = "step");

// The loss panel (train per step, train/val per evaluation) and, when the log has one,
// the metric panel.
std::string loss_curve_svg(const LossLog& log);

// ---- heatmaps ----

struct Heatmap {
  std::string title;
  std::vector<float> values;  // n x n, row-major (row = query / first item)
};

struct HeatmapOptions {
  std::string title;
  double vmin = 0, vmax = 1;
  bool diverging = false;   // blue-white-red instead of the sequential scale
  std::string scale_label;  // under the colour bar
  std::string row_axis = "query", col_axis = "key";
};

// grid[r][c]: heatmaps of labels.size() x labels.size() values each.
std::string heatmap_grid_svg(const std::vector<std::vector<Heatmap>>& grid,
                             const std::vector<std::string>& labels, const HeatmapOptions& opt);

// attention[l]: layer l's attention weights [1, H, T, T] (or [H, T, T]); labels: T tokens.
// The colour scale runs from 0 to the largest weight.
std::string attention_grid_svg(const std::vector<Tensor>& attention,
                               const std::vector<std::string>& labels, const std::string& title);

// matrix: n x n row-major; colours from -1 to 1.
std::string similarity_matrix_svg(const std::vector<float>& matrix,
                                  const std::vector<std::string>& labels, const std::string& title);

// Cosine similarity between the given rows of a [N, C] table -> rows.size()^2 values.
std::vector<float> cosine_similarity(const Tensor& table, const std::vector<int64_t>& rows);

// A token's text made visible for a label: newline -> "\n", tab -> "\t", space -> "␣",
// other control characters -> "\xNN", and at most max_chars characters (then "…").
std::string visible_token(const std::string& text, size_t max_chars = 10);

}  // namespace tinylm::report
