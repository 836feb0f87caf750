// How spread out each head's attention is: the entropy of every attention row
// H(row) = -sum_j a_j ln a_j (nats), averaged over the query rows of one head. 0 means
// every query looks at one key; ln(number of visible keys) means uniform attention. A
// causal row i sees i + 1 keys, so the table also gives the uniform reference, the mean
// of ln(i + 1) over the rows.
//   attention[l]: layer l's weights [1, H, T, T] or [H, T, T] -> entropy[l][h]
#pragma once
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace tinylm::report {

struct AttentionEntropy {
  std::vector<std::vector<double>> per_head;  // [layers][heads], mean row entropy (nats)
  double uniform_causal = 0;                  // mean over rows of ln(i + 1)
};

AttentionEntropy attention_entropy(const std::vector<Tensor>& attention);
// A plain-text table: one row per layer, one column per head.
std::string render_attention_entropy(const AttentionEntropy& e);

}  // namespace tinylm::report
