// The addition chapter's small experiments, each a pure function of its seed:
//   residual_norms      a vector pushed through random layers f(x) = GELU(W x + b),
//                       with x <- f(x) (no residual) or x <- x + f(x) (residual); the
//                       norm after each layer, and the norm of the gradient reaching the
//                       input from a unit gradient at the output (d|y|/dx)
//   sqrt_dk_experiment  random q, k ~ N(0, 1) in d_k dimensions, softmax over T keys: the
//                       spread of q.k grows as sqrt(d_k); dividing by sqrt(d_k) keeps the
//                       softmax entropy level instead of collapsing to one key
//   activation_curves   GELU (tanh and erf) and ReLU on [-4, 4]
//   layernorm_histogram rows of very different mean and scale, before and after
//                       LayerNorm (weight 1, bias 0): after it every row has mean 0, var 1
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "report/figures.h"

namespace tinylm::course {

struct ResidualNorms {
  double input_norm = 0;
  std::vector<double> without, with;            // |x| after each layer
  std::vector<double> grad_without, grad_with;  // |d(sum y)/d x_l| at each layer's input
};
// Layers: nn.Linear(d, d) with PyTorch's default init (uniform +-1/sqrt(d), bias too).
ResidualNorms residual_norms(int64_t layers, int64_t d, uint64_t seed);

struct SqrtDkRow {
  int64_t d_k = 0;
  double score_std = 0;         // std of q.k without scaling (about sqrt(d_k))
  double entropy_unscaled = 0;  // mean row entropy of softmax(q.k), nats
  double entropy_scaled = 0;    // ... of softmax(q.k / sqrt(d_k))
  double max_weight_unscaled = 0, max_weight_scaled = 0;  // mean largest weight of a row
};
// ln(T) is the entropy of uniform attention over T keys.
std::vector<SqrtDkRow> sqrt_dk_experiment(const std::vector<int64_t>& d_ks, int64_t T,
                                          int64_t trials, uint64_t seed);

// Curves as chart series (x, y) sampled at `points` points on [lo, hi].
std::vector<report::Series> activation_curves(double lo, double hi, int64_t points);

struct LayerNormHistogram {
  double before_mean = 0, before_std = 0, after_mean = 0, after_std = 0;  // over all values
  double worst_row_mean = 0, worst_row_var_error = 0;  // after: max |row mean|, |row var - 1|
  report::Points before, after;                        // (bin centre, share of values in the bin)
};
LayerNormHistogram layernorm_histogram(int64_t rows, int64_t d, int64_t bins, uint64_t seed);

// Text tables and SVG figures of the four experiments (tinylm demo NAME).
std::string format_residual(const ResidualNorms& r);
std::string residual_svg(const ResidualNorms& r);
std::string format_sqrt_dk(const std::vector<SqrtDkRow>& rows, int64_t T);
std::string sqrt_dk_svg(const std::vector<SqrtDkRow>& rows, int64_t T);
std::string activation_svg();
std::string format_activations();
std::string format_layernorm(const LayerNormHistogram& h);
std::string layernorm_svg(const LayerNormHistogram& h);

}  // namespace tinylm::course
