// tinylm attention --example: the course's worked example of scaled dot-product
// attention, printed step by step (Q K^T, S = Q K^T / sqrt(d_k), A = softmax(S), Y = A V),
// without and with the causal mask (src/course/handout.h).
// tinylm attention --run RUN_DIR | --model HF_DIR --text "..." --out FILE.svg: one
// forward pass over the text, and every layer's and head's attention weights drawn as
// a grid of heatmaps (rows = layers, columns = heads). --example --out FILE.svg draws
// the worked example's A, unmasked beside causal.
// tinylm attention --example journey: Raschka chapter 3's six-token example
// (src/course/journey.h), every step from the scores to the causal renormalisation.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/model_flags.h"
#include "course/handout.h"
#include "course/journey.h"
#include "report/attention_entropy.h"
#include "report/attention_maps.h"
#include "report/figures.h"
#include "report/svg.h"
#include "util/error.h"

namespace tinylm::cli {

namespace {

// The attention of every layer for one forward pass over `text` (the last block_size
// tokens of it), drawn as a heatmap grid.
std::string model_attention_svg(GPT& model, const Tokenizer& tokenizer, const std::string& text,
                                const std::string& source) {
  std::vector<int32_t> ids = tokenizer.encode(text);
  require(!ids.empty(), "--text encodes to no tokens");
  const auto block = static_cast<size_t>(model.config().block_size);
  if (ids.size() > block) {
    std::fprintf(stderr, "note: the text is %zu tokens; keeping the last %zu (block_size)\n",
                 ids.size(), block);
    ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(block));
  }
  const std::vector<Tensor> layers = report::attention_maps(model, ids);
  std::vector<std::string> labels;
  for (int32_t id : ids) labels.push_back(report::visible_token(tokenizer.decode({id})));
  std::fputs(report::render_attention_entropy(report::attention_entropy(layers)).c_str(), stdout);
  return report::attention_grid_svg(
      layers, labels,
      "attention weights of " + source + " (" + std::to_string(ids.size()) + " tokens)");
}

}  // namespace

int run_attention(int argc, char** argv) {
  CLI::App app{"Show scaled dot-product attention at work.", "tinylm attention"};
  std::string example_name, text, out;
  ModelFlags source;
  auto* ex = app.add_option("--example", example_name,
                            "a worked example: 'handout' (the default when no NAME is given: "
                            "Q=[[1,0],[0,1],[1,1]], K=[[1,0],[1,1],[0,1]], V=[[1,0],[0,2],[3,1]], "
                            "d_k=2, unmasked and causal) or 'journey' (Raschka ch. 3, \"Your "
                            "journey starts with one step\")")
                 ->expected(0, 1);
  add_model_flags(app, source);
  app.get_option("--run")->excludes(ex);
  app.get_option("--model")->excludes(ex);
  app.add_option("--text", text, "the text to run through the model (with --run / --model)");
  app.add_option("--out", out, "write the attention weights as an SVG heatmap grid")
      ->check(kNonEmptyPath);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  const bool example = ex->count() > 0;
  if (example && example_name.empty()) example_name = "handout";
  require(!example || (!has_model(source) && text.empty()),
          "--example shows the course's own numbers: leave out --run, --model and --text");
  if (!example) {
    require(has_model(source), "nothing to show: pass --example, --run or --model");
    require(!text.empty(), "--run / --model need --text");
    require(!out.empty(), "--run / --model need --out FILE.svg");
    OpenedModel m = open_model(source);
    svg::write_file(out, model_attention_svg(m.gpt(), *m.tokenizer, text, m.source.path));
    std::printf("wrote %s\n", out.c_str());
    return 0;
  }
  if (example_name == "journey") {
    require(out.empty(), "--out is not available with --example journey");
    std::fputs(course::format_journey(course::journey_example()).c_str(), stdout);
    return 0;
  }
  require(example_name == "handout",
          "--example: unknown example '" + example_name + "' (handout, journey)");
  const course::HandoutExample unmasked = course::handout_example(false),
                               causal = course::handout_example(true);
  std::fputs(course::format_handout_inputs().c_str(), stdout);
  std::fputs(course::format_handout(unmasked).c_str(), stdout);
  std::fputs(course::format_handout(causal).c_str(), stdout);
  if (!out.empty()) {
    report::HeatmapOptions opt;
    opt.title = "worked example: A = softmax(Q K^T / sqrt(2))";
    opt.scale_label = "attention weight";
    svg::write_file(out, report::heatmap_grid_svg(
                             {{{"no mask", unmasked.attention}, {"causal mask", causal.attention}}},
                             {"token 0", "token 1", "token 2"}, opt));
  }
  return 0;
}

}  // namespace tinylm::cli
