// tinylm demo NAME [--out FILE.svg]: the addition chapter's small experiments
// (course/experiments.h), printed as a table and optionally drawn as an SVG figure.
//   residual     a vector through 6 random layers, with and without residual connections
//   sqrt-dk      softmax entropy with and without the 1/sqrt(d_k) scale as d_k grows
//   activations  the GELU (erf, tanh) and ReLU curves
//   layernorm    values before and after LayerNorm (histograms)
//   gpt-to-llama GPT-2 124M to Llama one change at a time: parameters, FLOPs and
//                KV-cache bytes per token after each (course/gpt_to_llama.h; no figure)
#include <cstdio>
#include <string>

#include "cli/cli_util.h"
#include "course/experiments.h"
#include "course/gpt_to_llama.h"
#include "report/svg.h"
#include "util/error.h"

namespace tinylm::cli {

namespace {

// residual's bounds: its weights are layers x dim x dim floats, all held at once.
constexpr int64_t kMaxLayers = 1000, kMaxDim = 1024;
constexpr int64_t kMaxWeights = int64_t{1} << 25;  // floats: 128 MiB

void check_residual_shape(int64_t layers, int64_t d) {
  require(layers >= 1 && d >= 1, "--layers and --dim must be >= 1");
  require(layers <= kMaxLayers, "--layers must be at most " + std::to_string(kMaxLayers) +
                                    ", got " + std::to_string(layers));
  require(d <= kMaxDim,
          "--dim must be at most " + std::to_string(kMaxDim) + ", got " + std::to_string(d));
  require(layers * d * d <= kMaxWeights,
          "--layers x --dim x --dim must be at most " + std::to_string(kMaxWeights) +
              " weights (128 MiB), got " + std::to_string(layers * d * d));
}

}  // namespace

int run_demo(int argc, char** argv) {
  CLI::App app{"The course's small experiments, as tables and SVG figures.", "tinylm demo"};
  std::string name, out;
  int64_t layers = 6, d = 64;
  uint64_t seed = 123;
  app.add_option("name", name, "residual | sqrt-dk | activations | layernorm | gpt-to-llama")
      ->required();
  app.add_option("--out", out, "also draw the figure into this SVG file")->check(kNonEmptyPath);
  app.add_option("--layers", layers, "residual: number of random layers (default 6, at most 1000)");
  app.add_option("--dim", d, "residual: width of the layers (default 64, at most 1024)");
  app.add_option("--seed", seed, "seed of the random draws (default 123)");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(name == "residual" || (app.count("--layers") == 0 && app.count("--dim") == 0),
          "--layers and --dim apply only to the residual demo");
  std::string text, svg_text;
  if (name == "residual") {
    check_residual_shape(layers, d);
    const course::ResidualNorms r = course::residual_norms(layers, d, seed);
    text = course::format_residual(r);
    svg_text = course::residual_svg(r);
  } else if (name == "sqrt-dk") {
    const auto rows = course::sqrt_dk_experiment({4, 16, 64, 256, 1024}, 16, 2000, seed);
    text = course::format_sqrt_dk(rows, 16);
    svg_text = course::sqrt_dk_svg(rows, 16);
  } else if (name == "activations") {
    text = course::format_activations();
    svg_text = course::activation_svg();
  } else if (name == "layernorm") {
    const course::LayerNormHistogram h = course::layernorm_histogram(256, 64, 60, seed);
    text = course::format_layernorm(h);
    svg_text = course::layernorm_svg(h);
  } else if (name == "gpt-to-llama") {
    require(app.count("--out") == 0, "gpt-to-llama prints a table and draws no figure");
    text = course::format_gpt_to_llama(course::gpt_to_llama_steps(), 1024);
  } else {
    throw InputError("unknown demo '" + name +
                     "' (residual, sqrt-dk, activations, layernorm, gpt-to-llama)");
  }
  std::fputs(text.c_str(), stdout);
  if (app.count("--out") > 0) {
    svg::write_file(out, svg_text);
    std::printf("wrote %s\n", out.c_str());
  }
  return 0;
}

}  // namespace tinylm::cli
