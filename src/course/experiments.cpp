// The addition chapter's small experiments (see experiments.h).
#include "course/experiments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "ops/activation.h"
#include "ops/layernorm.h"
#include "ops/matmul.h"
#include "ops/softmax.h"
#include "util/rng.h"

namespace tinylm::course {

namespace {

double norm(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

double entropy(const float* p, int64_t n) {
  double h = 0;
  for (int64_t i = 0; i < n; ++i)
    if (p[i] > 0) h -= p[i] * std::log(static_cast<double>(p[i]));
  return h;
}

// A non-finite value (float32 overflows in a deep stack of residual layers: the
// gradient grows each layer) prints as "overflow", as wide as the number would be.
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  if (std::isfinite(v)) return buf;
  const std::string word = "overflow";
  const size_t width = std::strlen(buf);
  return std::string(width > word.size() ? width - word.size() : 0, ' ') + word;
}

}  // namespace

ResidualNorms residual_norms(int64_t layers, int64_t d, uint64_t seed) {
  Rng rng(seed);
  const float bound = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<std::vector<float>> W(layers), b(layers);
  for (int64_t l = 0; l < layers; ++l) {
    W[l].resize(d * d);
    b[l].resize(d);
    for (float& w : W[l]) w = (2 * rng.uniform() - 1) * bound;
    for (float& v : b[l]) v = (2 * rng.uniform() - 1) * bound;
  }
  std::vector<float> x0(d);
  for (float& v : x0) v = rng.normal();
  ResidualNorms r;
  r.input_norm = norm(x0);
  for (bool residual : {false, true}) {
    std::vector<float> x = x0;
    std::vector<std::vector<float>> z(layers, std::vector<float>(d));  // pre-activations
    std::vector<float> f(d);
    for (int64_t l = 0; l < layers; ++l) {
      ops::linear_forward(x.data(), W[l].data(), b[l].data(), z[l].data(), 1, d, d);
      ops::activation_forward(ops::Activation::GeluTanh, z[l].data(), f.data(), d);
      for (int64_t i = 0; i < d; ++i) x[i] = (residual ? x[i] : 0.0f) + f[i];
      (residual ? r.with : r.without).push_back(norm(x));
    }
    // Backward from L = sum of the output: g = dL/dx, layer by layer down to the input.
    std::vector<float> g(d, 1.0f), dz(d), dx(d);
    std::vector<double> grads(layers);
    for (int64_t l = layers - 1; l >= 0; --l) {
      ops::activation_backward(ops::Activation::GeluTanh, g.data(), z[l].data(), dz.data(), d);
      ops::matmul(dz.data(), W[l].data(), dx.data(), 1, d, d);  // dx [1, d] = dz @ W
      for (int64_t i = 0; i < d; ++i) g[i] = (residual ? g[i] : 0.0f) + dx[i];
      grads[l] = norm(g);
    }
    (residual ? r.grad_with : r.grad_without) = grads;
  }
  return r;
}

std::vector<SqrtDkRow> sqrt_dk_experiment(const std::vector<int64_t>& d_ks, int64_t T,
                                          int64_t trials, uint64_t seed) {
  std::vector<SqrtDkRow> rows;
  for (int64_t d_k : d_ks) {
    Rng rng(seed + static_cast<uint64_t>(d_k));
    SqrtDkRow row;
    row.d_k = d_k;
    std::vector<float> q(d_k), k(T * d_k), s(T), p(T);
    double sum_sq = 0;
    for (int64_t t = 0; t < trials; ++t) {
      for (float& v : q) v = rng.normal();
      for (float& v : k) v = rng.normal();
      ops::matmul(q.data(), k.data(), s.data(), 1, T, d_k, false, true);  // [1, T] = q k^T
      for (float v : s) sum_sq += static_cast<double>(v) * v;
      ops::softmax_forward(s.data(), p.data(), 1, T);
      row.entropy_unscaled += entropy(p.data(), T);
      row.max_weight_unscaled += *std::max_element(p.begin(), p.end());
      for (float& v : s) v /= std::sqrt(static_cast<float>(d_k));
      ops::softmax_forward(s.data(), p.data(), 1, T);
      row.entropy_scaled += entropy(p.data(), T);
      row.max_weight_scaled += *std::max_element(p.begin(), p.end());
    }
    const auto n = static_cast<double>(trials);
    row.score_std = std::sqrt(sum_sq / (n * static_cast<double>(T)));
    row.entropy_unscaled /= n;
    row.entropy_scaled /= n;
    row.max_weight_unscaled /= n;
    row.max_weight_scaled /= n;
    rows.push_back(row);
  }
  return rows;
}

std::vector<report::Series> activation_curves(double lo, double hi, int64_t points) {
  std::vector<float> x(points), y(points);
  for (int64_t i = 0; i < points; ++i)
    x[i] = static_cast<float>(lo +
                              (hi - lo) * static_cast<double>(i) / static_cast<double>(points - 1));
  std::vector<report::Series> out;
  const struct {
    ops::Activation a;
    const char* name;
    const char* colour;
  } curves[] = {{ops::Activation::Relu, "ReLU", "#d62728"},
                {ops::Activation::GeluErf, "GELU (erf, exact)", "#1f77b4"},
                {ops::Activation::GeluTanh, "GELU (tanh approximation)", "#2ca02c"}};
  for (const auto& c : curves) {
    ops::activation_forward(c.a, x.data(), y.data(), points);
    report::Series s{c.name, {}, c.colour, false};
    for (int64_t i = 0; i < points; ++i) s.points.emplace_back(x[i], y[i]);
    out.push_back(s);
  }
  return out;
}

LayerNormHistogram layernorm_histogram(int64_t rows, int64_t d, int64_t bins, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x(rows * d), y(rows * d), mean(rows), rstd(rows), w(d, 1.0f), b(d, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {  // each row its own offset (-5..5) and scale (0.5..4.5)
    const float m = 10 * rng.uniform() - 5, s = 0.5f + 4 * rng.uniform();
    for (int64_t c = 0; c < d; ++c) x[r * d + c] = m + s * rng.normal();
  }
  ops::layernorm_forward(x.data(), w.data(), b.data(), y.data(), mean.data(), rstd.data(), rows, d,
                         1e-5f);
  LayerNormHistogram h;
  const auto stats = [](const std::vector<float>& v, double& m, double& sd) {
    double s = 0, s2 = 0;
    for (float a : v) s += a, s2 += static_cast<double>(a) * a;
    m = s / static_cast<double>(v.size());
    sd = std::sqrt(std::max(0.0, s2 / static_cast<double>(v.size()) - m * m));
  };
  stats(x, h.before_mean, h.before_std);
  stats(y, h.after_mean, h.after_std);
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int64_t c = 0; c < d; ++c) m += y[r * d + c];
    m /= static_cast<double>(d);
    for (int64_t c = 0; c < d; ++c) v += (y[r * d + c] - m) * (y[r * d + c] - m);
    v /= static_cast<double>(d);
    h.worst_row_mean = std::max(h.worst_row_mean, std::fabs(m));
    h.worst_row_var_error = std::max(h.worst_row_var_error, std::fabs(v - 1.0));
  }
  const auto histogram = [bins](const std::vector<float>& v, double lo, double hi) {
    std::vector<double> count(bins, 0.0);
    for (float a : v) {
      const auto i = static_cast<int64_t>((a - lo) / (hi - lo) * static_cast<double>(bins));
      if (i >= 0 && i < bins) count[i] += 1;
    }
    report::Points p;
    for (int64_t i = 0; i < bins; ++i)
      p.emplace_back(lo + (hi - lo) * (static_cast<double>(i) + 0.5) / static_cast<double>(bins),
                     count[i] / static_cast<double>(v.size()));
    return p;
  };
  h.before = histogram(x, -15, 15);
  h.after = histogram(y, -15, 15);
  return h;
}

std::string format_residual(const ResidualNorms& r) {
  std::string out = "input norm " + fmt("%.4f", r.input_norm) + "\n";
  out +=
      "layer | norm without residual | with residual | gradient norm at the layer's input: "
      "without | with\n";
  for (size_t l = 0; l < r.without.size(); ++l)
    out += fmt("%5.0f", static_cast<double>(l + 1)) + " | " + fmt("%21.4f", r.without[l]) + " | " +
           fmt("%13.4f", r.with[l]) + " | " + fmt("%44.3e", r.grad_without[l]) + " | " +
           fmt("%.3e", r.grad_with[l]) + "\n";
  return out;
}

std::string residual_svg(const ResidualNorms& r) {
  report::Series a{"without residual", {}, "#d62728", true},
      b{"with residual", {}, "#1f77b4", true};
  report::Series ga{"without residual", {}, "#d62728", true},
      gb{"with residual", {}, "#1f77b4", true};
  for (size_t l = 0; l < r.without.size(); ++l) {
    const auto x = static_cast<double>(l + 1);
    a.points.emplace_back(x, r.without[l]);
    b.points.emplace_back(x, r.with[l]);
    ga.points.emplace_back(x, std::log10(r.grad_without[l]));
    gb.points.emplace_back(x, std::log10(r.grad_with[l]));
  }
  return report::line_chart_svg(
      {{"norm of x after each layer", "|x|", {a, b}},
       {"gradient reaching each layer's input", "log10 |dL/dx|", {ga, gb}}},
      "layer");
}

std::string format_sqrt_dk(const std::vector<SqrtDkRow>& rows, int64_t T) {
  std::string out = "softmax over " + std::to_string(T) +
                    " keys, q and k ~ N(0, 1); uniform "
                    "attention has entropy ln " +
                    std::to_string(T) + " = " + fmt("%.4f", std::log(static_cast<double>(T))) +
                    "\n";
  out +=
      "  d_k | std of q.k | entropy unscaled | scaled by 1/sqrt(d_k) | max weight unscaled | "
      "scaled\n";
  for (const auto& r : rows)
    out += fmt("%5.0f", static_cast<double>(r.d_k)) + " | " + fmt("%10.3f", r.score_std) + " | " +
           fmt("%16.4f", r.entropy_unscaled) + " | " + fmt("%21.4f", r.entropy_scaled) + " | " +
           fmt("%19.4f", r.max_weight_unscaled) + " | " + fmt("%.4f", r.max_weight_scaled) + "\n";
  return out;
}

std::string sqrt_dk_svg(const std::vector<SqrtDkRow>& rows, int64_t T) {
  report::Series u{"q.k (unscaled)", {}, "#d62728", true},
      s{"q.k / sqrt(d_k)", {}, "#1f77b4", true};
  report::Series uniform{"uniform: ln T", {}, "#7f7f7f", false};
  for (const auto& r : rows) {
    const double x = std::log2(static_cast<double>(r.d_k));
    u.points.emplace_back(x, r.entropy_unscaled);
    s.points.emplace_back(x, r.entropy_scaled);
    uniform.points.emplace_back(x, std::log(static_cast<double>(T)));
  }
  return report::line_chart_svg(
      {{"entropy of a softmax row as d_k grows", "entropy (nats)", {u, s, uniform}}}, "log2 d_k");
}

std::string activation_svg() {
  return report::line_chart_svg({{"activation functions", "f(x)", activation_curves(-4, 4, 161)}},
                                "x");
}

std::string format_activations() {
  std::string out = "     x |   ReLU | GELU erf | GELU tanh\n";
  const auto curves = activation_curves(-3, 3, 13);
  for (size_t i = 0; i < curves[0].points.size(); ++i)
    out += fmt("%6.2f", curves[0].points[i].first) + " | " +
           fmt("%6.4f", curves[0].points[i].second) + " | " +
           fmt("%8.4f", curves[1].points[i].second) + " | " +
           fmt("%9.4f", curves[2].points[i].second) + "\n";
  return out;
}

std::string format_layernorm(const LayerNormHistogram& h) {
  return "before LayerNorm: mean " + fmt("%.4f", h.before_mean) + ", std " +
         fmt("%.4f", h.before_std) + " (rows of offsets -5..5, scales 0.5..4.5)\n" +
         "after LayerNorm:  mean " + fmt("%.4f", h.after_mean) + ", std " +
         fmt("%.4f", h.after_std) + "; every row: |mean| <= " + fmt("%.1e", h.worst_row_mean) +
         ", |var - 1| <= " + fmt("%.1e", h.worst_row_var_error) + "\n";
}

std::string layernorm_svg(const LayerNormHistogram& h) {
  return report::line_chart_svg(
      {{"values before LayerNorm", "share of values", {{"before", h.before, "#d62728", false}}},
       {"values after LayerNorm (weight 1, bias 0)",
        "share of values",
        {{"after", h.after, "#1f77b4", false}}}},
      "value");
}

}  // namespace tinylm::course
