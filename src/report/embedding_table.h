// The size of a token embedding table for one vocabulary at several widths (the course
// module's table): parameters V * d and their float32 bytes (4 bytes each, in MiB).
//   vocab 32,100: d 128 -> 4,108,800 (4.1M), 15.67 MiB ... d 1,024 -> 32.9M, 125.39 MiB
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tinylm::report {

struct EmbeddingSize {
  int64_t d_model = 0;
  int64_t parameters = 0;  // vocab * d_model
  double mib = 0;          // parameters * 4 / 2^20
};

std::vector<EmbeddingSize> embedding_sizes(int64_t vocab, const std::vector<int64_t>& dims);
std::string render_embedding_table(int64_t vocab, const std::vector<int64_t>& dims);

}  // namespace tinylm::report
