// Raschka chapter 3's six-token attention example: computation and printing.
#include "course/journey.h"

#include <cmath>
#include <cstdio>

#include "course/torch_generator.h"
#include "ops/attention.h"
#include "ops/matmul.h"
#include "ops/softmax.h"

namespace tinylm::course {

namespace {

constexpr int T = JourneyExample::T, D_IN = JourneyExample::d_in, D_OUT = JourneyExample::d_out;

// a [M, K] @ b [K, N] -> [M, N]
std::vector<float> matmul(const std::vector<float>& a, const std::vector<float>& b, int M, int N,
                          int K, bool trans_b = false) {
  std::vector<float> c(static_cast<size_t>(M * N));
  ops::matmul(a.data(), b.data(), c.data(), M, N, K, false, trans_b);
  return c;
}

std::vector<float> softmax_rows(const std::vector<float>& x, int rows, int cols) {
  std::vector<float> y(x.size());
  ops::softmax_forward(x.data(), y.data(), rows, cols);
  return y;
}

std::vector<float> row(const std::vector<float>& m, int r, int cols) {
  return {m.begin() + r * cols, m.begin() + (r + 1) * cols};
}

}  // namespace

JourneyExample journey_example() {
  JourneyExample ex;
  ex.words = {"Your", "journey", "starts", "with", "one", "step"};
  ex.inputs = {0.43f, 0.15f, 0.89f, 0.55f, 0.87f, 0.66f, 0.57f, 0.85f, 0.64f,
               0.22f, 0.58f, 0.33f, 0.77f, 0.25f, 0.10f, 0.05f, 0.80f, 0.55f};

  // 3.3: no trainable weights. scores [T, T] = x x^T; the second row is the worked query.
  ex.scores = matmul(ex.inputs, ex.inputs, T, T, D_IN, /*trans_b=*/true);
  ex.weights = softmax_rows(ex.scores, T, T);
  ex.contexts = matmul(ex.weights, ex.inputs, T, D_IN, T);
  ex.scores_2 = row(ex.scores, 1, T);
  float sum = 0.0f;
  for (float s : ex.scores_2) sum += s;
  for (float s : ex.scores_2) ex.weights_2_by_sum.push_back(s / sum);
  ex.weights_2 = softmax_rows(ex.scores_2, 1, T);
  ex.context_2.assign(D_IN, 0.0f);
  for (int j = 0; j < T; ++j)
    for (int c = 0; c < D_IN; ++c) ex.context_2[c] += ex.weights_2[j] * ex.inputs[j * D_IN + c];

  // 3.4: W = torch.rand(d_in, d_out) for query, key, value in that order.
  const float scale = 1.0f / std::sqrt(static_cast<float>(D_OUT));
  {
    TorchCpuGenerator gen(123);
    ex.W_query = gen.rand(D_IN * D_OUT);
    ex.W_key = gen.rand(D_IN * D_OUT);
    ex.W_value = gen.rand(D_IN * D_OUT);
  }
  ex.queries = matmul(ex.inputs, ex.W_query, T, D_OUT, D_IN);
  ex.keys = matmul(ex.inputs, ex.W_key, T, D_OUT, D_IN);
  ex.values = matmul(ex.inputs, ex.W_value, T, D_OUT, D_IN);
  const std::vector<float> trained_scores = matmul(ex.queries, ex.keys, T, T, D_OUT, true);
  ex.trained_scores_2 = row(trained_scores, 1, T);
  std::vector<float> scaled_2 = ex.trained_scores_2;
  for (float& s : scaled_2) s *= scale;
  ex.trained_weights_2 = softmax_rows(scaled_2, 1, T);
  ex.trained_context_2 = matmul(ex.trained_weights_2, ex.values, 1, D_OUT, T);
  ex.trained_contexts.resize(T * D_OUT);
  {
    std::vector<float> att(T * T);
    ops::attention_forward(ex.queries.data(), ex.keys.data(), ex.values.data(),
                           ex.trained_contexts.data(), att.data(), {1, T, T, D_OUT, D_OUT}, scale,
                           {});
  }

  // 3.5: nn.Linear projections (weights [d_out, d_in], so q = x W^T), causal mask.
  {
    TorchCpuGenerator gen(789);
    ex.linear_Wq = gen.linear_weight(D_IN, D_OUT);
    ex.linear_Wk = gen.linear_weight(D_IN, D_OUT);
    ex.linear_Wv = gen.linear_weight(D_IN, D_OUT);
  }
  const std::vector<float> q = matmul(ex.inputs, ex.linear_Wq, T, D_OUT, D_IN, true);
  const std::vector<float> k = matmul(ex.inputs, ex.linear_Wk, T, D_OUT, D_IN, true);
  const std::vector<float> v = matmul(ex.inputs, ex.linear_Wv, T, D_OUT, D_IN, true);
  std::vector<float> s = matmul(q, k, T, T, D_OUT, true);
  for (float& x : s) x *= scale;
  ex.causal_unmasked = softmax_rows(s, T, T);
  ex.causal_zeroed = ex.causal_unmasked;
  for (int i = 0; i < T; ++i)
    for (int j = i + 1; j < T; ++j) ex.causal_zeroed[i * T + j] = 0.0f;
  ex.causal_renormed = ex.causal_zeroed;
  for (int i = 0; i < T; ++i) {
    float row_sum = 0.0f;
    for (int j = 0; j < T; ++j) row_sum += ex.causal_zeroed[i * T + j];
    for (int j = 0; j < T; ++j) ex.causal_renormed[i * T + j] /= row_sum;
  }
  ex.causal_inf_masked.resize(T * T);
  ex.causal_contexts.resize(T * D_OUT);
  ops::AttentionMask causal;
  causal.causal = true;
  ops::attention_forward(q.data(), k.data(), v.data(), ex.causal_contexts.data(),
                         ex.causal_inf_masked.data(), {1, T, T, D_OUT, D_OUT}, scale, causal);
  return ex;
}

namespace {

void append_vector(std::string& out, const char* name, const std::vector<float>& v) {
  char buf[32];
  out += name;
  out += " = [";
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.4f", i ? ", " : "", v[i]);
    out += buf;
  }
  out += "]\n";
}

void append_matrix(std::string& out, const char* name, const std::vector<float>& m, int rows,
                   int cols, const std::vector<std::string>* labels = nullptr) {
  char buf[48];
  out += name;
  out += " =\n";
  for (int r = 0; r < rows; ++r) {
    std::snprintf(buf, sizeof buf, "  %-8s [", labels ? (*labels)[r].c_str() : "");
    out += buf;
    for (int c = 0; c < cols; ++c) {
      std::snprintf(buf, sizeof buf, "%s%7.4f", c ? " " : "", m[r * cols + c]);
      out += buf;
    }
    out += " ]\n";
  }
}

}  // namespace

std::string format_journey(const JourneyExample& ex) {
  std::string out;
  out += "\"Your journey starts with one step\": 6 tokens, 3-d embeddings (Raschka, ch. 3)\n";
  append_matrix(out, "inputs", ex.inputs, T, D_IN, &ex.words);

  out += "\n--- 3.3.1 attention without trainable weights, query x_2 (\"journey\") ---\n";
  append_vector(out, "attention scores  w_2j = x_2 . x_j", ex.scores_2);
  append_vector(out, "weights (scores / sum)", ex.weights_2_by_sum);
  append_vector(out, "weights softmax(scores)", ex.weights_2);
  append_vector(out, "context vector z_2 = sum_j a_2j x_j", ex.context_2);

  out += "\n--- 3.3.2 every token as the query ---\n";
  append_matrix(out, "attention scores  inputs @ inputs^T", ex.scores, T, T, &ex.words);
  append_matrix(out, "attention weights  softmax(scores, rows)", ex.weights, T, T, &ex.words);
  append_matrix(out, "context vectors  weights @ inputs", ex.contexts, T, D_IN, &ex.words);

  out += "\n--- 3.4 trainable weights: torch.manual_seed(123), W = torch.rand(3, 2) ---\n";
  append_matrix(out, "W_query", ex.W_query, D_IN, D_OUT);
  append_matrix(out, "W_key", ex.W_key, D_IN, D_OUT);
  append_matrix(out, "W_value", ex.W_value, D_IN, D_OUT);
  append_vector(out, "query_2 = x_2 W_query", row(ex.queries, 1, D_OUT));
  append_vector(out, "attention scores  query_2 . key_j", ex.trained_scores_2);
  append_vector(out, "weights softmax(scores / sqrt(d_k = 2))", ex.trained_weights_2);
  append_vector(out, "context vector z_2", ex.trained_context_2);
  append_matrix(out, "all context vectors (SelfAttention_v1)", ex.trained_contexts, T, D_OUT,
                &ex.words);

  out += "\n--- 3.5 causal attention: torch.manual_seed(789), nn.Linear(3, 2, bias=False) ---\n";
  append_matrix(out, "weights without a mask", ex.causal_unmasked, T, T, &ex.words);
  append_matrix(out, "zeroed above the diagonal (tril)", ex.causal_zeroed, T, T, &ex.words);
  append_matrix(out, "renormalised: each row / its sum", ex.causal_renormed, T, T, &ex.words);
  append_matrix(out, "softmax with -inf above the diagonal (the same, in one step)",
                ex.causal_inf_masked, T, T, &ex.words);
  append_matrix(out, "causal context vectors", ex.causal_contexts, T, D_OUT, &ex.words);
  return out;
}

}  // namespace tinylm::course
