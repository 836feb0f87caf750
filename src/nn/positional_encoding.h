// Position information added to the token embeddings.
//   Learned (GPT-2): a trainable table weight [block_size, C]; position p uses row p.
//   Sinusoidal (Vaswani et al. 2017), fixed:
//     PE[p, 2i] = sin(p / 10000^(2i/C)),  PE[p, 2i+1] = cos(p / 10000^(2i/C))
//   forward(start, T) -> [T, C], the encodings of positions start .. start+T-1
//   backward(dpe [T, C]) accumulates into weight.grad (learned only)
#pragma once
#include <string>

#include "nn/buffer_plan.h"
#include "tensor/parameter.h"
#include "util/rng.h"

namespace tinylm::nn {

class PositionalEncoding {
 public:
  PositionalEncoding() = default;
  PositionalEncoding(int64_t max_len, int64_t dim, bool learned);

  Tensor forward(int64_t start, int64_t T);
  void backward(const Tensor& dpe);
  void init(Rng& rng, float std);  // learned: normal(0, std); sinusoidal: nothing to do
  void parameters(ParameterList& list, const std::string& prefix);
  bool learned() const { return learned_; }
  // What a step keeps: y [T, dim].
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& dim,
                           const StepShape& s);

  Parameter weight;  // learned: the table; sinusoidal: the fixed table (not trained)

 private:
  int64_t max_len_ = 0, dim_ = 0;
  bool learned_ = true;
  int64_t start_ = 0;
  Tensor y_;
};

// The fixed sinusoidal table [max_len, dim] (dim even).
Tensor sinusoidal_table(int64_t max_len, int64_t dim);

}  // namespace tinylm::nn
