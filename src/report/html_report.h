// The run report: one self-contained HTML page (report.html in a run folder) with the
// run's summary, loss curves, latest samples, attention maps of a fixed input, parameter /
// FLOP / memory tables and config. Figures are inline SVG (report/figures.h); there is no
// script and nothing is loaded from elsewhere, so the file can be opened anywhere.
//
//   RunReport (the parts, already rendered) -> run_report_html -> the page's text
// Every piece of text is escaped (svg::escape), so sample text such as "<b>" or "&" is
// shown as written.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace tinylm::report {

struct RunReport {
  std::string title;                                         // e.g. the run folder's name
  std::string subtitle;                                      // e.g. "step 500 of 2,000"
  std::vector<std::pair<std::string, std::string>> summary;  // key -> value rows
  std::string loss_svg;                                      // loss_curve_svg, or "" (no log yet)
  std::vector<std::pair<std::string, std::string>> samples;  // caption -> text, newest first
  std::string attention_caption;                             // what the attention input is
  std::string attention_svg;                                 // attention_grid_svg, or ""
  std::string attention_entropy;  // render_attention_entropy of the same maps, or ""
  std::string model_text;         // render_text(model_info)
  std::string config_json;        // the run's config, pretty-printed
};

std::string run_report_html(const RunReport& report);

// An SVG document (svg::Document::str()) without its XML prologue, for inline use in HTML.
std::string inline_svg(const std::string& svg_document);

}  // namespace tinylm::report
