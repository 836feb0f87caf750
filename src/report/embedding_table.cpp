// The embedding-size table (see embedding_table.h).
#include "report/embedding_table.h"

#include <cstdio>

#include "report/text_table.h"
#include "util/error.h"

namespace tinylm::report {

std::vector<EmbeddingSize> embedding_sizes(int64_t vocab, const std::vector<int64_t>& dims) {
  require(vocab >= 1, "the vocabulary size must be >= 1");
  std::vector<EmbeddingSize> out;
  for (int64_t d : dims) {
    require(d >= 1, "embedding widths must be >= 1");
    const int64_t n = vocab * d;
    out.push_back({d, n, static_cast<double>(n) * 4.0 / (1024.0 * 1024.0)});
  }
  return out;
}

std::string render_embedding_table(int64_t vocab, const std::vector<int64_t>& dims) {
  TextTable t({"d_model", "parameters", "", "float32"}, {true, true, true, true});
  for (const EmbeddingSize& e : embedding_sizes(vocab, dims)) {
    char millions[32];
    std::snprintf(millions, sizeof millions, "%.1fM", static_cast<double>(e.parameters) / 1e6);
    t.add_row(
        {with_commas(e.d_model), with_commas(e.parameters), millions, fixed(e.mib, 2) + " MiB"});
  }
  return "token embedding table, vocabulary " + with_commas(vocab) + " (vocab x d_model):\n" +
         t.render();
}

}  // namespace tinylm::report
