// tinylm attention --example: the course's worked example of scaled dot-product
// attention, printed step by step (Q K^T, S = Q K^T / sqrt(d_k), A = softmax(S), Y = A V),
// without and with the causal mask.
#include <cmath>
#include <cstdio>
#include <vector>

#include "cli/cli_util.h"
#include "ops/attention.h"
#include "ops/matmul.h"
#include "util/error.h"

namespace tinylm::cli {

namespace {

void print_matrix(const char* name, const std::vector<float>& m, int rows, int cols) {
  std::printf("%s =\n", name);
  for (int r = 0; r < rows; ++r) {
    std::printf("  [");
    for (int c = 0; c < cols; ++c) std::printf("%s%8.4f", c ? " " : "", m[r * cols + c]);
    std::printf(" ]\n");
  }
}

void worked_example(bool causal) {
  // 3 tokens, d_k = d_v = 2.
  const std::vector<float> Q = {1, 0, 0, 1, 1, 1}, K = {1, 0, 1, 1, 0, 1}, V = {1, 0, 0, 2, 3, 1};
  const int T = 3, d = 2;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<float> qk(T * T), s(T * T), att(T * T), y(T * d);
  ops::matmul(Q.data(), K.data(), qk.data(), T, T, d, false, /*trans_b=*/true);
  for (int i = 0; i < T * T; ++i) s[i] = qk[i] * scale;
  ops::AttentionMask mask;
  mask.causal = causal;
  ops::attention_forward(Q.data(), K.data(), V.data(), y.data(), att.data(), {1, T, T, d, d},
                         scale, mask);
  std::printf("\n--- %s ---\n", causal ? "causal mask (token t sees tokens 0..t)" : "no mask");
  print_matrix("Q K^T", qk, T, T);
  if (causal) {
    for (int i = 0; i < T; ++i)
      for (int j = i + 1; j < T; ++j) s[i * T + j] = -INFINITY;
    print_matrix("S = Q K^T / sqrt(2), masked with -inf above the diagonal", s, T, T);
  } else {
    print_matrix("S = Q K^T / sqrt(2)", s, T, T);
  }
  print_matrix("A = softmax(S) (rows sum to 1)", att, T, T);
  print_matrix("Y = A V", y, T, d);
}

}  // namespace

int run_attention(int argc, char** argv) {
  CLI::App app{"Show scaled dot-product attention at work.", "tinylm attention"};
  bool example = false;
  app.add_flag("--example", example,
               "the worked example: Q=[[1,0],[0,1],[1,1]], K=[[1,0],[1,1],[0,1]], "
               "V=[[1,0],[0,2],[3,1]], d_k=2, unmasked and causal");
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(example, "nothing to show: pass --example");
  std::printf("Q = [[1,0],[0,1],[1,1]]   K = [[1,0],[1,1],[0,1]]   V = [[1,0],[0,2],[3,1]]   d_k = 2\n");
  worked_example(false);
  worked_example(true);
  return 0;
}

}  // namespace tinylm::cli
