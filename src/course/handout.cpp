#include "course/handout.h"

#include <cmath>
#include <cstdio>

#include "ops/attention.h"
#include "ops/matmul.h"

namespace tinylm::course {

namespace {

constexpr int kRows = HandoutExample::T, kDim = HandoutExample::d;
const std::vector<float> kQ = {1, 0, 0, 1, 1, 1}, kK = {1, 0, 1, 1, 0, 1}, kV = {1, 0, 0, 2, 3, 1};

void append_handout_matrix(std::string& out, const char* name, const std::vector<float>& m,
                           int rows, int cols) {
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
  const float scale = 1.0f / std::sqrt(static_cast<float>(kDim));
  ex.qk.resize(kRows * kRows);
  ex.scores.resize(kRows * kRows);
  ex.attention.resize(kRows * kRows);
  ex.output.resize(kRows * kDim);
  ops::matmul(kQ.data(), kK.data(), ex.qk.data(), kRows, kRows, kDim, false, /*trans_b=*/true);
  for (int i = 0; i < kRows * kRows; ++i) ex.scores[i] = ex.qk[i] * scale;
  if (causal)
    for (int i = 0; i < kRows; ++i)
      for (int j = i + 1; j < kRows; ++j) ex.scores[i * kRows + j] = -INFINITY;
  ops::AttentionMask mask;
  mask.causal = causal;
  ops::attention_forward(kQ.data(), kK.data(), kV.data(), ex.output.data(), ex.attention.data(),
                         {1, kRows, kRows, kDim, kDim}, scale, mask);
  return ex;
}

std::string format_handout_inputs() {
  return "Q = [[1,0],[0,1],[1,1]]   K = [[1,0],[1,1],[0,1]]   V = [[1,0],[0,2],[3,1]]   "
         "d_k = 2\n";
}

std::string format_handout(const HandoutExample& ex) {
  std::string out =
      ex.causal ? "\n--- causal mask (token t sees tokens 0..t) ---\n" : "\n--- no mask ---\n";
  append_handout_matrix(out, "Q K^T", ex.qk, kRows, kRows);
  append_handout_matrix(out,
                        ex.causal ? "S = Q K^T / sqrt(2), masked with -inf above the diagonal"
                                  : "S = Q K^T / sqrt(2)",
                        ex.scores, kRows, kRows);
  append_handout_matrix(out, "A = softmax(S) (rows sum to 1)", ex.attention, kRows, kRows);
  append_handout_matrix(out, "Y = A V", ex.output, kRows, kDim);
  return out;
}

}  // namespace tinylm::course
