#include "course/handout.h"

#include <cmath>
#include <cstdio>

#include "ops/attention.h"
#include "ops/matmul.h"

namespace tinylm::course {

namespace {

constexpr int T = HandoutExample::T, D = HandoutExample::d;
const std::vector<float> kQ = {1, 0, 0, 1, 1, 1}, kK = {1, 0, 1, 1, 0, 1}, kV = {1, 0, 0, 2, 3, 1};

void append_matrix(std::string& out, const char* name, const std::vector<float>& m, int rows,
                   int cols) {
  char cell[32];
  out += std::string(name) + " =\n";
  for (int r = 0; r < rows; ++r) {
    out += "  [";
    for (int c = 0; c < cols; ++c) {
      std::snprintf(cell, sizeof cell, "%s%8.4f", c ? " " : "", m[r * cols + c]);
      out += cell;
    }
    out += " ]\n";
  }
}

}  // namespace

HandoutExample handout_example(bool causal) {
  HandoutExample ex;
  ex.causal = causal;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  ex.qk.resize(T * T);
  ex.scores.resize(T * T);
  ex.attention.resize(T * T);
  ex.output.resize(T * D);
  ops::matmul(kQ.data(), kK.data(), ex.qk.data(), T, T, D, false, /*trans_b=*/true);
  for (int i = 0; i < T * T; ++i) ex.scores[i] = ex.qk[i] * scale;
  if (causal)
    for (int i = 0; i < T; ++i)
      for (int j = i + 1; j < T; ++j) ex.scores[i * T + j] = -INFINITY;
  ops::AttentionMask mask;
  mask.causal = causal;
  ops::attention_forward(kQ.data(), kK.data(), kV.data(), ex.output.data(), ex.attention.data(),
                         {1, T, T, D, D}, scale, mask);
  return ex;
}

std::string format_handout_inputs() {
  return "Q = [[1,0],[0,1],[1,1]]   K = [[1,0],[1,1],[0,1]]   V = [[1,0],[0,2],[3,1]]   "
         "d_k = 2\n";
}

std::string format_handout(const HandoutExample& ex) {
  std::string out =
      ex.causal ? "\n--- causal mask (token t sees tokens 0..t) ---\n" : "\n--- no mask ---\n";
  append_matrix(out, "Q K^T", ex.qk, T, T);
  append_matrix(out,
                ex.causal ? "S = Q K^T / sqrt(2), masked with -inf above the diagonal"
                          : "S = Q K^T / sqrt(2)",
                ex.scores, T, T);
  append_matrix(out, "A = softmax(S) (rows sum to 1)", ex.attention, T, T);
  append_matrix(out, "Y = A V", ex.output, T, D);
  return out;
}

}  // namespace tinylm::course
