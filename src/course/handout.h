// The handout's worked example of scaled dot-product attention (`tinylm attention
// --example`): three tokens, d_k = d_v = 2,
//   Q = [[1,0],[0,1],[1,1]]   K = [[1,0],[1,1],[0,1]]   V = [[1,0],[0,2],[3,1]]
// step by step, through ops::attention_forward as the model runs it:
//   Q K^T [T, T] -> S = Q K^T / sqrt(d_k) (-inf above the diagonal with the causal mask)
//   -> A = softmax(S) [T, T], rows sum to 1 -> Y = A V [T, d_v]
#pragma once
#include <string>
#include <vector>

namespace tinylm::course {

struct HandoutExample {
  static constexpr int T = 3, d = 2;
  bool causal = false;
  std::vector<float> qk;         // [T, T]  Q K^T
  std::vector<float> scores;     // [T, T]  S, masked when causal
  std::vector<float> attention;  // [T, T]  A = softmax(S)
  std::vector<float> output;     // [T, d]  Y = A V
};

HandoutExample handout_example(bool causal);

// "Q = [[1,0],[0,1],[1,1]]   K = ...   d_k = 2": the line that introduces the example.
std::string format_handout_inputs();
// One case, as `tinylm attention --example` prints it: a "--- no mask ---" or "--- causal
// mask ... ---" heading and each matrix, 4 decimals.
std::string format_handout(const HandoutExample& ex);

}  // namespace tinylm::course
