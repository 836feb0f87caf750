// tinylm embeddings --run RUN_DIR --out FILE.svg [--tokens "a,b,c"] [--positions]:
// the cosine similarity between rows of the token embedding table (wte), or with
// --positions of the position table (wpe, learned or sinusoidal), as an SVG heatmap.
// Tokens that the model treats alike have similar rows (e.g. the digits of the
// addition task); neighbouring positions of a learned table come out similar.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/model_flags.h"
#include "report/figures.h"
#include "report/svg.h"
#include "util/error.h"

namespace tinylm::cli {

namespace {

constexpr int64_t kMaxRows = 64;  // a bigger matrix is unreadable

// "a,b,\,,\n" -> {"a", "b", ",", "\n"}: commas separate; \, \n \t \\ are escapes.
std::vector<std::string> split_tokens(const std::string& list) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == ',') {
      out.emplace_back();
    } else if (list[i] == '\\' && i + 1 < list.size()) {
      const char e = list[++i];
      out.back() += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    } else {
      out.back() += list[i];
    }
  }
  return out;
}

}  // namespace

int run_embeddings(int argc, char** argv) {
  CLI::App app{"Cosine similarity of a model's embedding rows, as SVG.", "tinylm embeddings"};
  std::string out, tokens;
  ModelFlags source;
  bool positions = false;
  add_model_flags(app, source);
  app.add_option("--out", out, "the SVG file to write")->required()->check(kNonEmptyPath);
  app.add_option("--tokens", tokens,
                 "comma-separated token strings (\\, for a comma, \\n newline); default: the "
                 "first 64 ids");
  app.add_flag("--positions", positions, "the position embeddings (wpe) instead");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(app.count("--tokens") == 0 || !tokens.empty(),
          "--tokens is empty (leave it out for the first 64 ids)");
  OpenedModel opened = open_model(source);
  GPT* model = &opened.gpt();
  const Tokenizer* tokenizer = opened.tokenizer.get();

  std::vector<int64_t> rows;
  std::vector<std::string> labels;
  std::string title;
  if (positions) {
    require(app.count("--tokens") == 0, "--tokens and --positions exclude each other");
    const int64_t n = std::min(model->config().block_size, kMaxRows);
    for (int64_t p = 0; p < n; ++p) rows.push_back(p), labels.push_back(std::to_string(p));
    title = "cosine similarity of position embeddings (wpe), positions 0.." + std::to_string(n - 1);
  } else if (!tokens.empty()) {
    for (const std::string& t : split_tokens(tokens)) {
      const std::vector<int32_t> ids = tokenizer->encode(t);
      require(ids.size() == 1,
              "--tokens: \"" + t + "\" is " + std::to_string(ids.size()) + " tokens, not one");
      rows.push_back(ids[0]);
      labels.push_back(report::visible_token(t));
    }
    require(rows.size() <= static_cast<size_t>(kMaxRows) * 4, "--tokens: at most 256 tokens");
    title = "cosine similarity of token embeddings (wte)";
  } else {
    const int64_t n = std::min(tokenizer->vocab_size(), kMaxRows);
    for (int32_t id = 0; id < n; ++id)
      rows.push_back(id), labels.push_back(report::visible_token(tokenizer->decode({id})));
    title = "cosine similarity of token embeddings (wte), ids 0.." + std::to_string(n - 1);
  }
  const Tensor& table = positions ? model->wpe.weight.value : model->wte.weight.value;
  svg::write_file(
      out, report::similarity_matrix_svg(report::cosine_similarity(table, rows), labels, title));
  std::printf("wrote %s (%zu x %zu)\n", out.c_str(), rows.size(), rows.size());
  return 0;
}

}  // namespace tinylm::cli
