// The run report page: sections in order, figures inline, every text escaped.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include "report/svg.h"

namespace tinylm::report {
namespace {

RunReport example() {
  RunReport r;
  r.title = "shakespeare & co";
  r.subtitle = "step 500 of 2,000";
  r.summary = {{"val loss", "1.9081 (step 500)"}};
  svg::Document loss(100, 50);
  loss.text(10, 20, "loss");
  r.loss_svg = loss.str();
  r.samples = {{"step 500", "ROMEO:\n<script>alert(1)</script> & more"}};
  r.attention_caption = "fixed input \"abc\"";
  svg::Document att(80, 80);
  att.rect(0, 0, 10, 10, "#000000");
  r.attention_svg = att.str();
  r.model_text = "total  17,760";
  r.config_json = R"({"data": {"path": "a<b.txt"}})";
  return r;
}

TEST(HtmlReport, HasEverySectionInOrderWithInlineFigures) {
  const std::string page = run_report_html(example());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  size_t at = 0;
  for (const char* id : {"loss", "samples", "attention", "model", "config"}) {
    const size_t pos = page.find("<section id=\"" + std::string(id) + "\">");
    ASSERT_NE(pos, std::string::npos) << id;
    EXPECT_GT(pos, at) << id << " is out of order";
    at = pos;
  }
  // Two inline SVG figures, without their XML prologue (not valid inside HTML).
  size_t svgs = 0;
  for (size_t p = page.find("<svg"); p != std::string::npos; p = page.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 2u);
  EXPECT_EQ(page.find("<?xml"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);  // no script at all, not even a sample's
}

TEST(HtmlReport, EscapesEveryText) {
  const std::string page = run_report_html(example());
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"), std::string::npos);
  EXPECT_NE(page.find("ROMEO:\n"), std::string::npos);  // newlines kept inside <pre>
  EXPECT_NE(page.find("<title>tinylm run: shakespeare &amp; co</title>"), std::string::npos);
  EXPECT_NE(page.find("a&lt;b.txt"), std::string::npos);
  EXPECT_NE(page.find("fixed input &quot;abc&quot;"), std::string::npos);
}

TEST(HtmlReport, SaysWhatIsMissing) {
  RunReport r = example();
  r.loss_svg.clear();
  r.samples.clear();
  r.attention_svg.clear();
  const std::string page = run_report_html(r);
  EXPECT_NE(page.find("No training steps logged yet."), std::string::npos);
  EXPECT_NE(page.find("No samples"), std::string::npos);
  EXPECT_EQ(page.find("<svg"), std::string::npos);
}

TEST(HtmlReport, InlineSvgDropsThePrologueOnly) {
  EXPECT_EQ(inline_svg("<?xml version=\"1.0\"?>\n<svg a=\"1\"></svg>\n"), "<svg a=\"1\"></svg>\n");
  EXPECT_EQ(inline_svg("<svg></svg>"), "<svg></svg>");
}

}  // namespace
}  // namespace tinylm::report

namespace tinylm::report {
namespace {

TEST(HtmlReport, ShowsTheEntropyPerHeadInTheAttentionSection) {
  RunReport r = example();
  r.attention_entropy = "layer  head 0\n    0   0.693 <entropy>";
  const std::string page = run_report_html(r);
  const size_t attention = page.find("<section id=\"attention\">");
  const size_t table = page.find("Entropy per head");
  ASSERT_NE(table, std::string::npos);
  EXPECT_GT(table, attention);
  EXPECT_LT(table, page.find("<section id=\"model\">"));
  EXPECT_NE(page.find("0.693 &lt;entropy&gt;"), std::string::npos);
}

}  // namespace
}  // namespace tinylm::report
