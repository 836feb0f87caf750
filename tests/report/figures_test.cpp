// SVG figures: well-formed output, escaped text, readable labels at small and large T,
// a bounded size, a colour scale that separates values, and charts with a legend.
#include "report/figures.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/svg.h"
#include "util/error.h"

namespace tinylm::report {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// A minimal XML check: every <tag> is closed in order (or self-closed), and no raw '<'
// or '&' appears in text or attribute values outside entities.
void expect_well_formed(const std::string& xml) {
  std::vector<std::string> stack;
  size_t i = xml.find("<svg");
  ASSERT_NE(i, std::string::npos);
  while (i < xml.size()) {
    const size_t lt = xml.find('<', i);
    const std::string text = xml.substr(i, (lt == std::string::npos ? xml.size() : lt) - i);
    for (size_t a = text.find('&'); a != std::string::npos; a = text.find('&', a + 1))
      ASSERT_NE(text.find(';', a), std::string::npos) << "bare & in text: " << text;
    if (lt == std::string::npos) break;
    const size_t gt = xml.find('>', lt);
    ASSERT_NE(gt, std::string::npos);
    const std::string tag = xml.substr(lt + 1, gt - lt - 1);
    ASSERT_EQ(tag.find('<'), std::string::npos) << "raw < inside a tag: " << tag;
    ASSERT_EQ(count(tag, "\"") % 2, 0u) << "unbalanced quotes: " << tag;
    if (tag[0] == '/') {
      ASSERT_FALSE(stack.empty()) << "close without open: " << tag;
      EXPECT_EQ(stack.back(), tag.substr(1));
      stack.pop_back();
    } else if (tag.back() != '/') {
      stack.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    i = gt + 1;
  }
  EXPECT_TRUE(stack.empty()) << "unclosed <" << (stack.empty() ? "" : stack.back()) << ">";
}

std::vector<std::string> labels_of(int n) {
  std::vector<std::string> l;
  for (int i = 0; i < n; ++i) l.push_back("tok" + std::to_string(i) + "_");
  return l;
}

Tensor causal_attention(int64_t heads, int64_t T) {
  Tensor a = Tensor::zeros({1, heads, T, T});
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j <= i; ++j) a.data()[(h * T + i) * T + j] = 1.0f / (i + 1);
  return a;
}

TEST(Svg, EscapesMarkupCharacters) {
  EXPECT_EQ(svg::escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  svg::Document doc(100, 50);
  doc.text(1, 2, "<script>&\"'");
  const std::string s = doc.str();
  EXPECT_NE(s.find("&lt;script&gt;&amp;&quot;&apos;"), std::string::npos);
  EXPECT_EQ(s.find("<script>"), std::string::npos);
  expect_well_formed(s);
}

// XML 1.0 forbids U+FFFE, U+FFFF and control characters, and a document must be UTF-8:
// each becomes U+FFFD; tab, newline, CR and every other character pass through.
TEST(Svg, ReplacesWhatXmlForbids) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(svg::escape("a\xEF\xBF\xBE"
                        "b\xEF\xBF\xBF"
                        "c"),
            "a" + fffd + "b" + fffd + "c");
  EXPECT_EQ(svg::escape(std::string("x\0y\x0b\x1b", 5)), "x" + fffd + "y" + fffd + fffd);
  EXPECT_EQ(svg::escape("\xFF\xC3"), fffd + fffd);             // invalid and truncated UTF-8
  EXPECT_EQ(svg::escape("\xED\xA0\x80"), fffd + fffd + fffd);  // a surrogate
  EXPECT_EQ(svg::escape("t\tn\nr\r\x7F \xC3\xA9 \xEF\xBF\xBD \xF0\x9F\x98\x80"),
            "t\tn\nr\r\x7F \xC3\xA9 \xEF\xBF\xBD \xF0\x9F\x98\x80");
  svg::Document doc(100, 50);
  doc.text(1, 2, "\xEF\xBF\xBE\xEF\xBF\xBF\x01\xFE");
  expect_well_formed(doc.str());
}

TEST(Svg, ColourScalesSeparateEnds) {
  EXPECT_NE(svg::sequential(0), svg::sequential(1));
  EXPECT_NE(svg::diverging(0), svg::diverging(1));
  EXPECT_EQ(svg::diverging(0.5), "#f7f7f7");
  EXPECT_EQ(svg::rgb_hex(1, 0, 0.5), "#ff0080");
}

TEST(Figures, VisibleTokenShowsWhitespace) {
  EXPECT_EQ(visible_token("\n"), "\\n");
  EXPECT_EQ(visible_token(" the"), "\xE2\x90\xA3the");
  EXPECT_EQ(visible_token("abcdefghijkl", 4), "abcd\xE2\x80\xA6");
  EXPECT_EQ(visible_token("\x01"), "\\x01");
}

TEST(Figures, AttentionGridLabelsEveryTokenAtT13) {
  const auto labels = labels_of(13);
  const std::string s =
      attention_grid_svg({causal_attention(2, 13), causal_attention(2, 13)}, labels, "t & <x>");
  expect_well_formed(s);
  for (const auto& l : labels) EXPECT_GE(count(s, ">" + l + "<"), 2u) << l;  // both axes
  EXPECT_NE(s.find("layer 1, head 1"), std::string::npos);
  EXPECT_NE(s.find("t &amp; &lt;x&gt;"), std::string::npos);
}

TEST(Figures, AttentionGridThinsLabelsAndStaysBoundedAtT256) {
  const auto labels = labels_of(256);
  const std::string s = attention_grid_svg({causal_attention(1, 256)}, labels, "long");
  expect_well_formed(s);
  int shown = 0;
  for (const auto& l : labels) shown += count(s, ">" + l + "<") > 0;
  EXPECT_GT(shown, 10);
  EXPECT_LT(shown, 256);
  const size_t w = s.find("width=\""), h = s.find("height=\"");
  EXPECT_LT(std::stod(s.substr(w + 7)), 1200);
  EXPECT_LT(std::stod(s.substr(h + 8)), 1200);
  EXPECT_LT(s.size(), 4u << 20);
}

// The x of the <text> element that shows `content`, and the figure's width.
double text_x(const std::string& svg_text, const std::string& content) {
  const size_t at = svg_text.find(">" + content + "<");
  EXPECT_NE(at, std::string::npos) << content;
  const size_t start = svg_text.rfind("<text x=\"", at);
  return std::stod(svg_text.substr(start + 9));
}
double figure_width(const std::string& svg_text) {
  return std::stod(svg_text.substr(svg_text.find("width=\"") + 7));
}

// At 1 and 2 tokens a map is narrower than its title: the titles must still fit in the
// figure and not overlap (a glyph of 13 px sans-serif is taken as 0.6 em wide on average).
TEST(Figures, AttentionTitlesFitAtOneAndTwoTokens) {
  for (const std::vector<std::string>& labels :
       {std::vector<std::string>{"H"}, std::vector<std::string>{"H", "i"}}) {
    const auto T = static_cast<int64_t>(labels.size());
    const std::string s = attention_grid_svg({causal_attention(2, T)}, labels, "t");
    const double half = 0.5 * 15 * 13 * 0.6;  // "layer 0, head 0"
    const double x0 = text_x(s, "layer 0, head 0"), x1 = text_x(s, "layer 0, head 1");
    EXPECT_GE(x0 - half, 0) << "T " << T;
    EXPECT_LE(x1 + half, figure_width(s)) << "T " << T;
    EXPECT_GE(x1 - x0, 2 * half) << "T " << T << ": the titles overlap";
  }
}

// A legend entry as long as the activation demo's "GELU (tanh approximation)" fits.
TEST(Figures, LineChartLegendFitsLongNames) {
  const std::string name = "GELU (tanh approximation), a long legend entry";
  const std::string s = line_chart_svg({{"curves", "y", {{name, {{0, 0}, {1, 1}}, "#00f"}}}});
  EXPECT_LE(text_x(s, name) + name.size() * 12 * 0.6, figure_width(s));
}

TEST(Figures, MaxCellColourDiffersFromMin) {
  std::vector<float> m = {0, 0.25f, 0.5f, 1};
  HeatmapOptions opt;
  const std::string s = heatmap_grid_svg({{{"m", m}}}, {"a", "b"}, opt);
  expect_well_formed(s);
  EXPECT_NE(s.find(svg::sequential(0)), std::string::npos);
  EXPECT_NE(s.find(svg::sequential(1)), std::string::npos);
  EXPECT_NE(svg::sequential(0), svg::sequential(1));
}

TEST(Figures, SimilarityMatrixOfEmbeddings) {
  Tensor table = Tensor::from({3, 2}, {1, 0, 2, 0, 0, 1});
  const auto sim = cosine_similarity(table, {0, 1, 2});
  EXPECT_FLOAT_EQ(sim[1], 1.0f);  // rows 0 and 1 point the same way
  EXPECT_FLOAT_EQ(sim[2], 0.0f);
  EXPECT_THROW(cosine_similarity(table, {3}), InputError);
  const std::string s = similarity_matrix_svg(sim, {"<", "&", "\""}, "sim");
  expect_well_formed(s);
  EXPECT_NE(s.find(">&lt;<"), std::string::npos);
  EXPECT_NE(s.find(">&amp;<"), std::string::npos);
  EXPECT_NE(s.find(">&quot;<"), std::string::npos);
}

TEST(Figures, LossCurveHasTwoPolylinesAndALegend) {
  Panel p{
      "loss",
      "loss",
      {{"train", {{0, 3}, {10, 2}, {20, 1.5}}, "#00f"}, {"val", {{0, 3.1}, {20, 1.9}}, "#f00"}}};
  const std::string s = line_chart_svg({p});
  expect_well_formed(s);
  EXPECT_EQ(count(s, "<polyline"), 2u);
  EXPECT_NE(s.find(">train<"), std::string::npos);
  EXPECT_NE(s.find(">val<"), std::string::npos);
  EXPECT_NE(s.find(">step<"), std::string::npos);
}

TEST(Figures, ParsesTrainingLog) {
  const std::string text =
      "{\"step\":10,\"loss\":2.5,\"lr\":0.001,\"grad_norm\":1,\"tokens_per_s\":5}\n"
      "{\"step\":20,\"loss\":2.0,\"lr\":0.001,\"grad_norm\":1,\"tokens_per_s\":5}\n"
      "{\"step\":20,\"train_loss\":2.1,\"val_loss\":2.2,\"train_bpc\":3.0,\"val_bpc\":3.2}\n";
  const LossLog log = parse_log_jsonl(text);
  EXPECT_EQ(log.train.size(), 2u);
  EXPECT_EQ(log.eval_val.size(), 1u);
  EXPECT_EQ(log.metric, "bpc");
  ASSERT_EQ(log.metric_val.size(), 1u);
  EXPECT_DOUBLE_EQ(log.metric_val[0].second, 3.2);
  const std::string s = loss_curve_svg(log);
  expect_well_formed(s);
  EXPECT_NE(s.find("val bpc"), std::string::npos);
}

TEST(Figures, MalformedLogIsAnInputError) {
  EXPECT_THROW(parse_log_jsonl("{\"step\":1,\"loss\":2}\nnot json\n"), InputError);
  EXPECT_THROW(parse_log_jsonl("{\"loss\":2}\n"), InputError);
  EXPECT_THROW(parse_log_jsonl("{\"step\":1,\"loss\":\"x\"}\n"), InputError);
  EXPECT_THROW(parse_log_jsonl(""), InputError);
  EXPECT_THROW(read_log_jsonl("/nonexistent/log.jsonl"), InputError);
}

// A log read while a training appends to it may end in half a line: that line is
// skipped, a malformed line that is complete is still an error.
TEST(Figures, AHalfWrittenLastLineIsSkipped) {
  const LossLog log = parse_log_jsonl("{\"step\":1,\"loss\":2}\n{\"step\":2,\"lo");
  ASSERT_EQ(log.train.size(), 1u);
  EXPECT_DOUBLE_EQ(log.train[0].second, 2.0);
  EXPECT_EQ(parse_log_jsonl("{\"step\":1,\"loss\":2}").train.size(), 1u);
  EXPECT_THROW(parse_log_jsonl("{\"step\":1,\"loss\":2}\n{\"step\":2,\"lo\n"), InputError);
}

}  // namespace
}  // namespace tinylm::report
