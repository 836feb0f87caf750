#include "report/html_report.h"

#include "report/svg.h"

namespace tinylm::report {

namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px;
       color: #222; background: #fafafa; }
h1 { margin-bottom: 4px; }
h2 { margin-top: 32px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
.subtitle { color: #555; margin-top: 0; }
table.summary { border-collapse: collapse; }
table.summary td { padding: 3px 12px 3px 0; }
table.summary td:first-child { color: #555; }
pre { background: #fff; border: 1px solid #ddd; padding: 10px; overflow-x: auto;
      font-size: 13px; line-height: 1.35; }
pre.sample { white-space: pre-wrap; }
figure { margin: 0 0 16px 0; }
figcaption { color: #555; margin-bottom: 4px; }
svg { max-width: 100%; height: auto; background: #fff; }
nav a { margin-right: 14px; }
)";

void section(std::string& out, const std::string& id, const std::string& heading) {
  out += "<section id=\"" + id + "\">\n<h2>" + svg::escape(heading) + "</h2>\n";
}

}  // namespace

std::string inline_svg(const std::string& svg_document) {
  const size_t start = svg_document.find("<svg");
  return start == std::string::npos ? svg_document : svg_document.substr(start);
}

std::string run_report_html(const RunReport& r) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>tinylm run: " +
      svg::escape(r.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>tinylm run: " + svg::escape(r.title) + "</h1>\n";
  out += "<p class=\"subtitle\">" + svg::escape(r.subtitle) + "</p>\n";
  out +=
      "<nav><a href=\"#loss\">loss</a><a href=\"#samples\">samples</a>"
      "<a href=\"#attention\">attention</a><a href=\"#model\">model</a>"
      "<a href=\"#config\">config</a></nav>\n";

  out += "<table class=\"summary\">\n";
  for (const auto& [key, value] : r.summary)
    out += "<tr><td>" + svg::escape(key) + "</td><td>" + svg::escape(value) + "</td></tr>\n";
  out += "</table>\n";

  section(out, "loss", "Loss curves");
  out += r.loss_svg.empty() ? "<p>No training steps logged yet.</p>\n"
                            : "<figure class=\"figure\">" + inline_svg(r.loss_svg) + "</figure>\n";
  out += "</section>\n";

  section(out, "samples", "Latest samples");
  if (r.samples.empty()) out += "<p>No samples (sample.max_new_tokens is 0).</p>\n";
  for (const auto& [caption, text] : r.samples) {
    out += "<figure><figcaption>" + svg::escape(caption) + "</figcaption><pre class=\"sample\">" +
           svg::escape(text) + "</pre></figure>\n";
  }
  out += "</section>\n";

  section(out, "attention", "Attention maps");
  out += "<p>" + svg::escape(r.attention_caption) + "</p>\n";
  if (!r.attention_svg.empty())
    out += "<figure class=\"figure\">" + inline_svg(r.attention_svg) + "</figure>\n";
  if (!r.attention_entropy.empty())
    out += "<p>Entropy per head</p>\n<pre>" + svg::escape(r.attention_entropy) + "</pre>\n";
  out += "</section>\n";

  section(out, "model", "Parameters, FLOPs and memory");
  out += "<pre>" + svg::escape(r.model_text) + "</pre>\n</section>\n";

  section(out, "config", "Config");
  out += "<pre>" + svg::escape(r.config_json) + "</pre>\n</section>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace tinylm::report
