// Mean attention-row entropy per layer and head (see attention_entropy.h).
#include "report/attention_entropy.h"

#include <cmath>

#include "report/text_table.h"
#include "util/error.h"

namespace tinylm::report {

AttentionEntropy attention_entropy(const std::vector<Tensor>& attention) {
  AttentionEntropy e;
  for (const Tensor& a : attention) {
    const Shape& s = a.shape();
    require(s.size() >= 3 && s[s.size() - 1] == s[s.size() - 2],
            "attention weights must be [..., H, T, T]");
    const int64_t T = s[s.size() - 1], H = s[s.size() - 3];
    require(a.numel() == H * T * T, "attention weights must be [1, H, T, T] or [H, T, T]");
    std::vector<double> heads(H, 0.0);
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < T; ++i) {
        const float* row = a.data() + (h * T + i) * T;
        double ent = 0;
        for (int64_t j = 0; j < T; ++j)
          if (row[j] > 0) ent -= row[j] * std::log(static_cast<double>(row[j]));
        heads[h] += ent;
      }
      heads[h] /= static_cast<double>(T);
    }
    e.per_head.push_back(heads);
    e.uniform_causal = 0;
    for (int64_t i = 0; i < T; ++i) e.uniform_causal += std::log(static_cast<double>(i + 1));
    e.uniform_causal /= static_cast<double>(T);
  }
  return e;
}

std::string render_attention_entropy(const AttentionEntropy& e) {
  if (e.per_head.empty()) return "";
  std::vector<std::string> headers = {"layer"};
  std::vector<bool> right = {true};
  for (size_t h = 0; h < e.per_head[0].size(); ++h) {
    headers.push_back("head " + std::to_string(h));
    right.push_back(true);
  }
  TextTable t(headers, right);
  for (size_t l = 0; l < e.per_head.size(); ++l) {
    std::vector<std::string> row = {std::to_string(l)};
    for (double v : e.per_head[l]) row.push_back(fixed(v, 3));
    t.add_row(row);
  }
  return "mean entropy of an attention row (nats); 0 = one key, " + fixed(e.uniform_causal, 3) +
         " = uniform over the visible keys:\n" + t.render();
}

}  // namespace tinylm::report
