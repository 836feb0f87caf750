// Raschka, "Build a Large Language Model (From Scratch)", chapter 3: the six-token sentence
// "Your journey starts with one step", each token a 3-d embedding, worked through
//   3.3   attention without trainable weights: scores x x^T, softmax, context vectors;
//   3.4   trainable W_q, W_k, W_v (torch.rand after torch.manual_seed(123), d_out = 2),
//         scores scaled by 1/sqrt(d_k);
//   3.5   causal attention with nn.Linear projections (torch.manual_seed(789)): the
//         unmasked weights, the lower-triangle mask with renormalisation, and the same
//         weights from -inf masking before the softmax.
// Every matrix is row-major; T = 6 tokens, d_in = 3, d_out = 2.
#pragma once
#include <string>
#include <vector>

namespace tinylm::course {

struct JourneyExample {
  static constexpr int T = 6, d_in = 3, d_out = 2;
  std::vector<std::string> words;  // [T]
  std::vector<float> inputs;       // [T, d_in], the book's embeddings

  // 3.3.1: the second token ("journey") as the query.
  std::vector<float> scores_2;          // [T], x_2 . x_j
  std::vector<float> weights_2_by_sum;  // [T], scores / their sum
  std::vector<float> weights_2;         // [T], softmax of the scores
  std::vector<float> context_2;         // [d_in], sum_j weights_2[j] x_j
  // 3.3.2: every token as the query.
  std::vector<float> scores;    // [T, T] = inputs inputs^T
  std::vector<float> weights;   // [T, T], row softmax
  std::vector<float> contexts;  // [T, d_in] = weights inputs

  // 3.4: trainable weights, torch.manual_seed(123); W = torch.rand(d_in, d_out) x 3.
  std::vector<float> W_query, W_key, W_value;  // [d_in, d_out]
  std::vector<float> queries, keys, values;    // [T, d_out] = inputs W
  std::vector<float> trained_scores_2;         // [T], query_2 . key_j
  std::vector<float> trained_weights_2;        // [T], softmax(scores / sqrt(d_out))
  std::vector<float> trained_context_2;        // [d_out]
  std::vector<float> trained_contexts;         // [T, d_out], SelfAttention_v1's output

  // 3.5: nn.Linear(d_in, d_out, bias=False) x 3 after torch.manual_seed(789).
  std::vector<float> linear_Wq, linear_Wk, linear_Wv;  // [d_out, d_in] (PyTorch layout)
  std::vector<float> causal_unmasked;                  // [T, T], softmax(q k^T / sqrt(d_out))
  std::vector<float> causal_zeroed;      // [T, T], entries above the diagonal set to 0
  std::vector<float> causal_renormed;    // [T, T], each zeroed row divided by its sum
  std::vector<float> causal_inf_masked;  // [T, T], softmax with -inf above the diagonal
  std::vector<float> causal_contexts;    // [T, d_out] = causal_inf_masked v
};

// Computes every step of the example (plain loops; the numbers follow from the inputs).
JourneyExample journey_example();

// The example printed section by section, 4 decimals, as the book prints it.
std::string format_journey(const JourneyExample& ex);

}  // namespace tinylm::course
